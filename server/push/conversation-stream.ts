import 'server-only';
import { LIMITS } from '@/lib/limits';
import { subscribeConversation } from './bus';
import { changedSince, currentConversationEventId } from './conversation-changes';
import { eventStreamResponse, type PushMessage } from './event-stream';

/**
 * What a conversation stream says: these runs changed (started, finished, or wrote run events; read them with
 * GET /runs/:id and /runs/:id/events?after=), or `runIds: null`: re-read the conversation (first message after
 * missed changes, or too many to list).
 */
export type ConversationPush = { conversationId: string; runIds: string[] | null };

type ConversationStreamInput = {
  accountId: string;
  conversationId: string;
  lastEventId: number | null;
  signal: AbortSignal;
  /** Held while the stream is open (event-stream.ts). */
  request?: Request;
  heartbeatMs?: number;
};

const message = (id: number, data: ConversationPush): PushMessage<ConversationPush> => ({ id: String(id), event: 'conversation', data });

export function mergeConversationPush(a: PushMessage<ConversationPush>, b: PushMessage<ConversationPush>): PushMessage<ConversationPush> {
  let runIds: string[] | null = null;
  if (a.data.runIds && b.data.runIds) {
    const union = new Set([...a.data.runIds, ...b.data.runIds]);
    runIds = union.size <= LIMITS.activity.maxLimit ? [...union] : null;
  }
  return message(Math.max(Number(a.id), Number(b.id)), { conversationId: a.data.conversationId, runIds });
}

/**
 * The conversation's event stream. Ids rise monotonically (conversation-changes.ts); the first message carries the
 * newest id with `runIds: []` when the client's Last-Event-ID shows it missed nothing, null otherwise.
 */
export function conversationEventStream(input: ConversationStreamInput): Response {
  return eventStreamResponse<ConversationPush>({
    accountId: input.accountId,
    signal: input.signal,
    request: input.request,
    heartbeatMs: input.heartbeatMs,
    subscribe: (push) => subscribeConversation(input.conversationId, (c) => push(message(c.id, { conversationId: c.conversationId, runIds: c.runIds }))),
    first: () => {
      const upToDate = input.lastEventId !== null && !changedSince(input.conversationId, input.lastEventId);
      return message(currentConversationEventId(), { conversationId: input.conversationId, runIds: upToDate ? [] : null });
    },
    merge: mergeConversationPush,
  });
}
