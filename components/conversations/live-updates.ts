import type { PushStreamStatus } from '@/lib/push-stream';
import { parsePushObject } from '@/lib/push-stream';

/**
 * How the chat screen hears about changes (pure parts; use-conversation-events.ts wires them to the stream).
 * Push first: the server's conversation stream says which runs changed. While the stream is down the screen falls
 * back to re-reading the conversation every FALLBACK_POLL_MS and says so.
 */

/** One message of GET /conversations/:id/events (server/push/conversation-stream.ts). */
export type ConversationPush = { conversationId: string; runIds: string[] | null };

export type StreamStatus = 'connecting' | 'live' | 'down';

/** How often the conversation is re-read while its stream is down. */
export const FALLBACK_POLL_MS = 5_000;

/**
 * The stream reader's status as this screen tells it. A stream stopped for good (401/403/404: the conversation or
 * the session is gone) polls too, so the conversation's own read shows that error.
 */
export const streamStatusOf = (s: PushStreamStatus): StreamStatus =>
  s.state === 'open' ? 'live' : s.state === 'connecting' ? 'connecting' : 'down';

export const streamStatusLabel = (status: StreamStatus): string =>
  status === 'live' ? 'Live' : status === 'down' ? `Reconnecting — checking every ${FALLBACK_POLL_MS / 1000} s` : 'Connecting…';

/** The conversation's refetchInterval: none while the stream is up (or still opening), the fallback while it is down. */
export const fallbackInterval = (status: StreamStatus): number | false => (status === 'down' ? FALLBACK_POLL_MS : false);

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
