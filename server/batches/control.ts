import 'server-only';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterCommit, schema, writeTx } from '@/server/db';
import type { Batch } from '@/server/db/schema';
import { cancelRun } from '@/server/agents/runs';
import { conflict } from '@/server/http/errors';
import { batchChanged } from './changes';
import { batchEnded } from './ended';
import { returnCallerSlot } from './lend';
import { assertRoomForLiveBatch, getBatch } from './store';
import { endWaitsOfCancelledBatch } from './waits';

/**
 * Cancel the owner's batch: every queued, running or waiting item ends 'cancelled' in one transaction (a waiting
 * item's run has already stopped, and its answer, if any, is dropped), its lease bumped (a
 * worker finishing under the old lease is fenced off and records nothing) and cleared; in the same transaction the item
 * runs that wait on the person stop waiting (./waits.ts), so nothing is left for a question nobody can answer; the runs
 * still executing are stopped after the commit. Cancelling an ended batch returns it unchanged.
 */
export async function cancelBatch(ownerId: string, id: string): Promise<Batch> {
  await getBatch(ownerId, id);
  const { batch, runIds } = await writeTx(async (tx) => {
    const [current] = await tx.select().from(schema.batches).where(eq(schema.batches.id, id));
    if (!current || current.status === 'cancelled' || current.status === 'completed') return { batch: current!, runIds: [] as string[] };
    const running = await tx
      .select({ runId: schema.batchItems.runId })
      .from(schema.batchItems)
      .where(and(eq(schema.batchItems.batchId, id), eq(schema.batchItems.status, 'running')));
    const now = new Date();
    await tx
      .update(schema.batchItems)
      .set({ status: 'cancelled', lease: sql`${schema.batchItems.lease} + 1`, leaseExpiresAt: null, waitingSince: null, finishedAt: now })
      .where(and(eq(schema.batchItems.batchId, id), inArray(schema.batchItems.status, ['queued', 'running', 'waiting'])));
    await endWaitsOfCancelledBatch(tx, id);
    const [updated] = await tx.update(schema.batches).set({ status: 'cancelled', finishedAt: now }).where(eq(schema.batches.id, id)).returning();
    await returnCallerSlot(updated!);
    batchChanged(ownerId, id);
    afterCommit(() => batchEnded(id));
    return { batch: updated!, runIds: running.map((r) => r.runId).filter((r): r is string => !!r) };
  });
  // Nothing a stopped run reports is recorded (the fence above); stopping only frees the slots sooner.
  for (const runId of runIds) await cancelRun(runId).catch((err: unknown) => console.error(`[batches] stopping run ${runId} failed`, err));
  return batch;
}

/**
 * Failed items back to queued with a fresh attempt budget (attempts 0, a new lease, no held answer: a retry starts
 * the item afresh rather than resuming a question it may no longer be at); an ended batch runs again. A
 * cancelled batch is not revived here (409: retryCancelled does that), and reviving counts against the live batches
 * like a creation.
 */
export async function retryFailed(ownerId: string, id: string): Promise<Batch> {
  await getBatch(ownerId, id);
  return writeTx(async (tx) => {
    const [current] = await tx.select().from(schema.batches).where(eq(schema.batches.id, id));
    if (current!.status === 'cancelled' || current!.status === 'cancelling') {
      throw conflict('batch_cancelled', 'This batch was cancelled: re-run its cancelled and failed items instead (retry-cancelled)');
    }
    return requeue(tx, ownerId, current!, ['failed']);
  });
}

/**
 * A cancelled batch's cancelled and failed items back to queued, as retryFailed does for failed ones (a fresh attempt
 * budget, a new lease fencing off anything the cancelled runs still report, no held answer); completed items and
 * their results stay, and the batch runs again, counted against the live batches like a creation. Only a cancelled
 * batch (409 batch_not_cancelled otherwise: a running or completed one has no cancelled items).
 */
export async function retryCancelled(ownerId: string, id: string): Promise<Batch> {
  await getBatch(ownerId, id);
  return writeTx(async (tx) => {
    const [current] = await tx.select().from(schema.batches).where(eq(schema.batches.id, id));
    if (current!.status !== 'cancelled') {
      throw conflict('batch_not_cancelled', `Only a cancelled batch re-runs its cancelled items; this one is ${current!.status} (retry its failed items instead)`);
    }
    return requeue(tx, ownerId, current!, ['cancelled', 'failed']);
  });
}

type Tx = Parameters<Parameters<typeof writeTx>[0]>[0];

/** The batch's items in `statuses` queued afresh and the batch running again (unchanged when there are none). */
async function requeue(tx: Tx, ownerId: string, current: Batch, statuses: Array<'failed' | 'cancelled'>): Promise<Batch> {
  const id = current.id;
  const [count] = await tx
    .select({ n: sql<number>`count(*)` })
    .from(schema.batchItems)
    .where(and(eq(schema.batchItems.batchId, id), inArray(schema.batchItems.status, statuses)));
  if (Number(count?.n ?? 0) === 0) return current;
  if (current.status !== 'running') await assertRoomForLiveBatch(tx, ownerId);
  await tx
    .update(schema.batchItems)
    .set({ status: 'queued', attempts: 0, lease: sql`${schema.batchItems.lease} + 1`, leaseExpiresAt: null, runId: null, answer: null, error: null, waitingSince: null, startedAt: null, finishedAt: null })
    .where(and(eq(schema.batchItems.batchId, id), inArray(schema.batchItems.status, statuses)));
  // A retried batch's caller is told again when it ends.
  const [updated] = await tx.update(schema.batches).set({ status: 'running', finishedAt: null, notifiedAt: null }).where(eq(schema.batches.id, id)).returning();
  batchChanged(ownerId, id);
  return updated!;
}
