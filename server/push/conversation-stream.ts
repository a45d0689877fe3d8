import 'server-only';
import { LIMITS } from '@/lib/limits';
import { subscribeConversation, subscribeLiveOutput, type LiveOutputChange } from './bus';
import { changedSince, currentConversationEventId } from './conversation-changes';
import { eventStreamResponse, type PushMessage } from './event-stream';
import { currentLiveOutput } from './live-output';

/**
 * What a conversation stream says: these runs changed (started, finished, or wrote run events; read them with
 * GET /runs/:id and /runs/:id/events?after=), or `runIds: null`: re-read the conversation (first message after
 * missed changes, or too many to list).
 */
export type ConversationPush = { conversationId: string; runIds: string[] | null };

/** A running run's live output (`event: output`, no id), as on the team stream (team-stream.ts). */
export type ConversationOutputPush = {
  conversationId: string;
  runId: string;
  text: string;
  truncated: boolean;
  done: boolean;
  retrying: NonNullable<LiveOutputChange['retrying']> | null;
};

type ConversationStreamInput = {
  accountId: string;
  conversationId: string;
  lastEventId: number | null;
  signal: AbortSignal;
  /** Held while the stream is open (event-stream.ts). */
  request?: Request;
  /** The opening credential still good (event-stream.ts). */
  signedIn: () => Promise<boolean>;
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
export function conversationEventStream(input: ConversationStreamInput): Promise<Response> {
  const ofThis = (c: LiveOutputChange) => c.conversationId === input.conversationId;
  const output = (c: LiveOutputChange): PushMessage<ConversationOutputPush> => ({
    event: 'output',
    data: { conversationId: c.conversationId, runId: c.runId, text: c.text, truncated: c.truncated, done: c.done, retrying: c.retrying ?? null },
  });
  const isChange = (m: PushMessage<ConversationPush | ConversationOutputPush>): m is PushMessage<ConversationPush> => m.event === 'conversation';
  return eventStreamResponse<ConversationPush | ConversationOutputPush>({
    accountId: input.accountId,
    signal: input.signal,
    request: input.request,
    signedIn: input.signedIn,
    heartbeatMs: input.heartbeatMs,
    subscribe: (push) => {
      const changes = subscribeConversation(input.conversationId, (c) => push(message(c.id, { conversationId: c.conversationId, runIds: c.runIds })));
      const live = subscribeLiveOutput(input.accountId, ofThis, (c) => push(output(c)));
      return () => {
        changes();
        live();
      };
    },
    first: () => {
      const upToDate = input.lastEventId !== null && !changedSince(input.conversationId, input.lastEventId);
      const head = message(currentConversationEventId(), { conversationId: input.conversationId, runIds: upToDate ? [] : null });
      return [head, ...currentLiveOutput(input.accountId, ofThis).map(output)];
    },
    merge: (a, b) => (isChange(a) && isChange(b) ? mergeConversationPush(a, b) : b),
    key: (m) => (isChange(m) ? 'conversation' : `output:${(m.data as ConversationOutputPush).runId}`),
  });
}
