import 'server-only';
import type { BatchView } from '@/lib/types/batch';
import type { Batch } from '@/server/db/schema';
import { countsOf } from './store';
import { batchView } from './views';

/** Batches with their counts, as the API shows them. */
export async function batchViews(batches: readonly Batch[]): Promise<BatchView[]> {
  const counts = await countsOf(batches.map((b) => b.id));
  return batches.map((b) => batchView(b, counts.get(b.id)!));
}

export async function oneBatchView(batch: Batch): Promise<BatchView> {
  return (await batchViews([batch]))[0]!;
}
