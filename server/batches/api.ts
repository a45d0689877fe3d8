import 'server-only';
import { inArray } from 'drizzle-orm';
import type { BatchItemView, BatchView } from '@/lib/types/batch';
import { getDb, schema } from '@/server/db';
import type { Batch, BatchItem } from '@/server/db/schema';
import { countsOf } from './store';
import { batchItemView, batchView } from './views';

/** Batches with their counts, as the API shows them. */
export async function batchViews(batches: readonly Batch[]): Promise<BatchView[]> {
  const counts = await countsOf(batches.map((b) => b.id));
  return batches.map((b) => batchView(b, counts.get(b.id)!));
}

export async function oneBatchView(batch: Batch): Promise<BatchView> {
  return (await batchViews([batch]))[0]!;
}

/** Items as the API shows them: a waiting item with what its run asks (one read of those runs' interrupts). */
export async function batchItemViews(items: readonly BatchItem[]): Promise<BatchItemView[]> {
  const runIds = items.filter((i) => i.status === 'waiting' && i.runId).map((i) => i.runId!);
  const interrupts = new Map<string, unknown>();
  if (runIds.length) {
    const rows = await getDb().select({ id: schema.runs.id, interrupt: schema.runs.interrupt }).from(schema.runs).where(inArray(schema.runs.id, runIds));
    for (const row of rows) interrupts.set(row.id, row.interrupt);
  }
  return items.map((item) => batchItemView(item, item.runId ? interrupts.get(item.runId) : undefined));
}
