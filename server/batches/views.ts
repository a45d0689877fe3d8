import 'server-only';
import type { BatchItemView, BatchView } from '@/lib/types/batch';
import type { Batch, BatchItem } from '@/server/db/schema';
import { waitingOf } from '@/server/inbox/waiting';
import type { Counts } from './store';

/** The API's shape of a batch (lib/types/batch.ts). */
export function batchView(batch: Batch, counts: Counts): BatchView {
  return {
    id: batch.id,
    status: batch.status,
    target:
      batch.targetKind === 'member'
        ? { kind: 'member', teamId: batch.teamId ?? '', memberId: batch.memberId ?? '', name: batch.targetName }
        : { kind: 'agent', agentId: batch.agentId ?? '', name: batch.targetName },
    template: batch.template,
    columns: batch.columns,
    total: batch.total,
    concurrency: batch.concurrency,
    maxAttempts: batch.maxAttempts,
    counts,
    createdAt: batch.createdAt.toISOString(),
    startedAt: batch.createdAt.toISOString(),
    finishedAt: batch.finishedAt?.toISOString() ?? null,
    origin: batch.origin,
  };
}

/** What an item was asked and what came of it: an export's row (server/batches/export.ts) and the core of its view. */
export const batchItemOutcome = (item: BatchItem) => ({
  index: item.idx,
  status: item.status,
  attempts: item.attempts,
  input: item.input,
  result: item.result,
  truncated: item.resultTruncated,
  error: item.error,
});

/** `interrupt`: the item's run's, for a waiting item (what it asks: ./api.ts batchItemViews reads it). */
export function batchItemView(item: BatchItem, interrupt?: unknown): BatchItemView {
  return {
    id: item.id,
    ...batchItemOutcome(item),
    waiting: item.status === 'waiting' && interrupt !== undefined ? waitingOf(interrupt) : null,
    runId: item.runId,
    startedAt: item.startedAt?.toISOString() ?? null,
    finishedAt: item.finishedAt?.toISOString() ?? null,
  };
}
