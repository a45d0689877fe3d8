import { parsePushObject } from '@/lib/push-stream';

/**
 * How the chat screen hears about changes (pure parts; use-conversation-events.ts wires them to the stream). Push
 * first: the server's conversation stream says which runs changed. While the stream is down the screen falls back
 * to re-reading the conversation (lib/query/use-live-stream.ts, LIVE_FALLBACK_MS.openThread) and says so.
 */

/** One message of GET /conversations/:id/events (server/push/conversation-stream.ts). */
export type ConversationPush = { conversationId: string; runIds: string[] | null };

/** A message's data, checked field by field (it is JSON from the wire); null when it is not one of ours. */
export function parsePush(raw: string): ConversationPush | null {
  const data = parsePushObject(raw);
  if (!data) return null;
  const { conversationId, runIds } = data;
  if (typeof conversationId !== 'string') return null;
  if (runIds === null) return { conversationId, runIds: null };
  if (!Array.isArray(runIds) || !runIds.every((r) => typeof r === 'string')) return null;
  return { conversationId, runIds };
}

/**
 * Does this message change what the screen shows? `runIds: []` is the stream's "you missed nothing" on
 * (re)connecting; anything else (runs that changed, or null: re-read) does.
 */
export const pushChangesState = (push: ConversationPush): boolean => push.runIds === null || push.runIds.length > 0;
