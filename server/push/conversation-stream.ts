import 'server-only';
import { subscribeConversation, subscribeFiles, subscribeLiveOutput, type LiveOutputChange } from './bus';
import { changedSince, currentConversationEventId } from './conversation-changes';
import { eventStreamResponse, mergeChangedIds, openingOf, type PushMessage, type StreamOpening } from './event-stream';
import { currentLiveOutput, liveOutputFields, type LiveOutputFields } from './live-output';

/**
 * What a conversation stream says: these runs changed (started, finished, or wrote run events; read them with
 * GET /runs/:id and /runs/:id/events?after=), or `runIds: null`: re-read the conversation (first message after
 * missed changes, or too many to list).
 */
export type ConversationPush = { conversationId: string; runIds: string[] | null };

/** A running run's live output (`event: output`, no id), as on the team stream (team-stream.ts). */
export type ConversationOutputPush = { conversationId: string } & LiveOutputFields;

/** One of the chat's files was created, updated or deleted (`event: file`, no id: the Files panel re-reads). */
export type ConversationFilePush = { fileId: string; conversationId: string; revision: number };

type ConversationStreamInput = StreamOpening & { conversationId: string; lastEventId: number | null };

const message = (id: number, data: ConversationPush): PushMessage<ConversationPush> => ({ id: String(id), event: 'conversation', data });

export function mergeConversationPush(a: PushMessage<ConversationPush>, b: PushMessage<ConversationPush>): PushMessage<ConversationPush> {
  const runIds = mergeChangedIds(a.data.runIds, b.data.runIds);
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
    data: { conversationId: c.conversationId, ...liveOutputFields(c) },
  });
  const isChange = (m: PushMessage<ConversationPush | ConversationOutputPush | ConversationFilePush>): m is PushMessage<ConversationPush> => m.event === 'conversation';
  return eventStreamResponse<ConversationPush | ConversationOutputPush | ConversationFilePush>({
    ...openingOf(input),
    subscribe: (push) => {
      const changes = subscribeConversation(input.conversationId, (c) => push(message(c.id, { conversationId: c.conversationId, runIds: c.runIds })));
      const live = subscribeLiveOutput(input.accountId, ofThis, (c) => push(output(c)));
      const files = subscribeFiles(input.accountId, (c) => c.conversationId === input.conversationId, (c) =>
        push({ event: 'file', data: { fileId: c.fileId, conversationId: input.conversationId, revision: c.revision } }),
      );
      return () => {
        changes();
        live();
        files();
      };
    },
    first: () => {
      const upToDate = input.lastEventId !== null && !changedSince(input.conversationId, input.lastEventId);
      const head = message(currentConversationEventId(), { conversationId: input.conversationId, runIds: upToDate ? [] : null });
      return [head, ...currentLiveOutput(input.accountId, ofThis).map(output)];
    },
    merge: (a, b) => (isChange(a) && isChange(b) ? mergeConversationPush(a, b) : b),
    key: (m) => (isChange(m) ? 'conversation' : m.event === 'file' ? `file:${(m.data as ConversationFilePush).fileId}` : `output:${(m.data as ConversationOutputPush).runId}`),
  });
}
