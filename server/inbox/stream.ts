import 'server-only';
import { runEvents, type RunEvent } from '@/server/agents/run-events';
import { pushBus, subscribeAccountTeams, type BatchChange } from '@/server/push/bus';
import { eventStreamResponse, type PushMessage, type StreamOpening } from '@/server/push/event-stream';

/**
 * The inbox stream (GET /api/v1/inbox/events, ADR 056): "re-read the inbox". It carries no items: the inbox is one
 * small indexed read, so like the teams list (ADR 030) every message, the first of each connection included, says
 * re-read. What can change it, for this account only: one of its teams changed (a job began or stopped waiting,
 * announced after commit with its owner), or one of its runs started or finished (a chat stopped on a question or an
 * approval; an answer's run began), or one of its batches changed (an item began or stopped waiting). Runs finishing
 * and batch changes in another process arrive through the push bridge.
 */
export type InboxPush = { reread: true };

const g = globalThis as unknown as { __ensembleInboxIds?: number };
const nextId = () => (g.__ensembleInboxIds = (g.__ensembleInboxIds ?? Date.now() * 1_000) + 1);
const message = (): PushMessage<InboxPush> => ({ id: String(nextId()), event: 'inbox', data: { reread: true } });

/** Two unsent messages say the same thing: keep the later. */
export const mergeInboxPush = (a: PushMessage<InboxPush>, b: PushMessage<InboxPush>): PushMessage<InboxPush> =>
  Number(b.id) > Number(a.id) ? b : a;

/** Call `listener` on every change that may move the account's inbox, never on another account's; returns the unsubscribe. */
export function subscribeInboxChanges(accountId: string, listener: () => void): () => void {
  const offTeams = subscribeAccountTeams(accountId, listener);
  const onRun = (event: RunEvent) => {
    if (event.ownerId === accountId) listener();
  };
  // A batch item starts or stops waiting in a write after its run's end (the item's finalize, an answer, a cancel).
  const onBatch = (change: BatchChange) => {
    if (change.ownerId === accountId) listener();
  };
  runEvents().on('run:started', onRun);
  runEvents().on('run:finished', onRun);
  pushBus().on('batch', onBatch);
  return () => {
    offTeams();
    pushBus().off('batch', onBatch);
    runEvents().off('run:started', onRun);
    runEvents().off('run:finished', onRun);
  };
}

export function inboxEventStream(opening: StreamOpening): Promise<Response> {
  return eventStreamResponse<InboxPush>({
    ...opening,
    subscribe: (push) => subscribeInboxChanges(opening.accountId, () => push(message())),
    first: message,
    merge: mergeInboxPush,
  });
}
