import 'server-only';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterCommit, getDb, schema } from '@/server/db';
import { batchChanged } from './changes';
import { batchEnded } from './ended';
import { returnCallerSlot } from './lend';

/**
 * Inside the transaction that made an item terminal: a running batch with no queued, running or waiting item left is
 * completed. Its end is announced after the commit (waiters, the calling run's message).
 */
export async function finishBatchIfDone(batchId: string): Promise<void> {
  const db = getDb();
  const [open] = await db
    .select({ n: sql<number>`count(*)` })
    .from(schema.batchItems)
    .where(and(eq(schema.batchItems.batchId, batchId), inArray(schema.batchItems.status, ['queued', 'running', 'waiting'])));
  if (Number(open?.n ?? 0) > 0) return;
  const done = await db
    .update(schema.batches)
    .set({ status: 'completed', finishedAt: new Date() })
    .where(and(eq(schema.batches.id, batchId), eq(schema.batches.status, 'running')))
    .returning({ ownerId: schema.batches.ownerId, notify: schema.batches.notify, parentRunId: schema.batches.parentRunId });
  if (!done.length) return;
  await returnCallerSlot(done[0]!);
  batchChanged(done[0]!.ownerId, batchId);
  afterCommit(() => batchEnded(batchId));
}
