'use server';

import type { ActionResult } from '@/lib/action-result';
import { batchCreateSchema } from '@/lib/schemas/batch';
import { respondSchema } from '@/lib/schemas/team';
import type { BatchItemView, BatchView } from '@/lib/types/batch';
import { requireUser } from '@/server/auth/require-user';
import { answerItem } from '@/server/batches/answer';
import { cancelBatch, retryCancelled, retryFailed } from '@/server/batches/control';
import { oneBatchView } from '@/server/batches/api';
import { batchItemView } from '@/server/batches/views';
import { createBatch } from '@/server/batches/store';
import type { Batch } from '@/server/db/schema';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { wakeScheduler } from '@/server/scheduler/signal';

/**
 * The batch pages' mutations: the same server/batches functions and schema as POST /api/v1/batches, …/cancel,
 * …/retry-failed and …/retry-cancelled, each resolving the signed-in person itself. Another owner's ids (a batch, an agent, a team member)
 * answer not_found like missing ones and change nothing.
 */

/** As the routes answer: the batch with its counts, after waking the scheduler for the items it may now admit. */
async function changed(batch: Batch): Promise<{ batch: BatchView }> {
  wakeScheduler();
  return { batch: await oneBatchView(batch) };
}

/** Start a batch from the browser; the same idempotencyKey again answers the batch it already started. */
export async function createBatchAction(input: unknown): Promise<ActionResult<{ batch: BatchView }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const { batch } = await createBatch(user.id, actionInput(batchCreateSchema, input), { origin: 'person' });
    return changed(batch);
  });
}

/** End every unfinished item at once; an ended batch comes back unchanged. */
export async function cancelBatchAction(batchId: unknown): Promise<ActionResult<{ batch: BatchView }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return changed(await cancelBatch(user.id, actionId(batchId)));
  });
}

/** Failed items back to the queue with a fresh budget of tries. */
export async function retryFailedBatchAction(batchId: unknown): Promise<ActionResult<{ batch: BatchView }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return changed(await retryFailed(user.id, actionId(batchId)));
  });
}

/** A cancelled batch's cancelled and failed items back to the queue with a fresh budget of tries; the batch runs again. */
export async function retryCancelledBatchAction(batchId: unknown): Promise<ActionResult<{ batch: BatchView }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return changed(await retryCancelled(user.id, actionId(batchId)));
  });
}

/**
 * Answer a waiting item (its question, its approval): the batch page's and the Inbox's control, as
 * POST /api/v1/batches/:id/items/:itemId/answer. The item queues again and its run resumes in its turn.
 */
export async function answerBatchItemAction(batchId: unknown, itemId: unknown, input: unknown): Promise<ActionResult<{ item: BatchItemView }>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const item = await answerItem(user.id, actionId(batchId), actionId(itemId), actionInput(respondSchema, input));
    return { item: batchItemView(item) };
  });
}
