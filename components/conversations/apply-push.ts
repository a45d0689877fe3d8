/** What one message of a conversation's event stream does to the query cache: exactly the entries it names. */
import type { QueryClient } from '@tanstack/react-query';
import { runKeys } from '@/components/runs/queries';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { parsePush, pushChangesState } from './live-updates';
import { conversationKeys } from './queries';

/**
 * Re-read the conversation's state (exact: its mention targets are not touched) and the named runs' entries (an
 * open Steps panel). A message for another conversation, one that is not ours, or "you missed nothing" changes
 * nothing. Returns whether anything was invalidated. A burst of messages costs each entry one read at a time
 * (lib/query/refresh-on-push.ts).
 */
export function applyConversationPush(queryClient: QueryClient, conversationId: string, raw: string): boolean {
  const push = parsePush(raw);
  if (!push || push.conversationId !== conversationId || !pushChangesState(push)) return false;
  refreshOnPush(queryClient, { queryKey: conversationKeys.state(conversationId), exact: true });
  for (const runId of push.runIds ?? []) refreshOnPush(queryClient, { queryKey: runKeys.detail(runId) });
  return true;
}
