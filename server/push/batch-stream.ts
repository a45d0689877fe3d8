import 'server-only';
import type { BatchView } from '@/lib/types/batch';
import { subscribeBatch } from './bus';
import { eventStreamResponse, openingOf, type PushMessage, type StreamOpening } from './event-stream';

/**
 * A batch's live stream (ADR 059): `batch` events carrying the BatchView (status and counts), the first as things
 * stand, then one after each change (bus 'batch', relayed between processes). The state is read again at each change,
 * so a reconnecting client's Last-Event-ID needs nothing replayed: its first message is the whole state.
 */
export type BatchPush = { batch: BatchView };

const g = globalThis as unknown as { __ensembleBatchPushIds?: number };
const nextId = () => (g.__ensembleBatchPushIds = (g.__ensembleBatchPushIds ?? Date.now() * 1_000) + 1);

/** Two unsent messages: the one read later (higher id) is the newer state. */
const newer = (a: PushMessage<BatchPush>, b: PushMessage<BatchPush>) => (Number(b.id) >= Number(a.id) ? b : a);

export function batchEventStream(input: StreamOpening & { batchId: string; read: () => Promise<BatchView> }): Promise<Response> {
  // The id is taken when the read starts: a slower, older read merged after a newer one loses to it.
  const read = async (): Promise<PushMessage<BatchPush>> => {
    const id = String(nextId());
    return { id, event: 'batch', data: { batch: await input.read() } };
  };
  return eventStreamResponse<BatchPush>({
    ...openingOf(input),
    subscribe: (push) =>
      subscribeBatch(input.accountId, input.batchId, () => {
        read().then(push, (err: unknown) => console.error('[push] batch state not read', err));
      }),
    first: read,
    merge: newer,
  });
}
