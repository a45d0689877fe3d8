import 'server-only';
import { and, asc, eq } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import type { Batch } from '@/server/db/schema';
import { countsOf } from './store';

/** How many failures an end summary lists (the rest are counted): the items API pages through all of them. */
export const SUMMARY_FAILURES = 10;

/**
 * What the calling run learns of an ended batch: its counts and its first failures (index and error). Errors may hold
 * text a model or a tool wrote: the caller sends this only in the untrusted channel, tag-neutralized.
 */
export async function batchSummary(batch: Batch) {
  const counts = (await countsOf([batch.id])).get(batch.id)!;
  const failures = await getDb()
    .select({ index: schema.batchItems.idx, error: schema.batchItems.error })
    .from(schema.batchItems)
    .where(and(eq(schema.batchItems.batchId, batch.id), eq(schema.batchItems.status, 'failed')))
    .orderBy(asc(schema.batchItems.idx))
    .limit(SUMMARY_FAILURES);
  return { batchId: batch.id, status: batch.status, total: batch.total, counts, failures, moreFailures: Math.max(0, counts.failed - failures.length) };
}
