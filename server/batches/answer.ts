import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { RespondInput } from '@/lib/schemas/team';
import { checkInterruptResponse } from '@/server/agents/interrupt-response';
import { latestRun } from '@/server/agents/run-store';
import { getDb, schema, writeTx } from '@/server/db';
import type { BatchItem } from '@/server/db/schema';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import type { ItemAnswer } from './answer-shape';
import { batchChanged } from './changes';

const NOT_WAITING = 'This item is not waiting for an answer (answered already, or its batch was cancelled)';
export const CANCELLED = 'This item’s batch was cancelled: there is nothing to answer any more. Re-run its cancelled items to ask again.';

/**
 * The person's answer to a waiting batch item (the Inbox, the API, the batch page): held on the item, which goes back
 * to queued, so the scheduler admits it like any other item (owner-fair, within the batch's concurrency) and its launch
 * resumes the run with the answer, spending no attempt (items.ts resumeItem). Another owner's item, or one of another
 * batch, is 404 like a missing one. Idempotent by answerKey: the same answer again changes nothing.
 */
export async function answerItem(ownerId: string, batchId: string | null, itemId: string, input: RespondInput): Promise<BatchItem> {
  const item = await writeTx(async (tx) => {
    const [row] = await tx
      .select()
      .from(schema.batchItems)
      .where(and(eq(schema.batchItems.id, itemId), eq(schema.batchItems.ownerId, ownerId), batchId ? eq(schema.batchItems.batchId, batchId) : undefined));
    if (!row) throw notFound('Batch item');
    if ((row.answer as ItemAnswer | null)?.answerKey === input.answerKey) return row;
    // A cancel ended the item and its run's wait (./waits.ts): nothing is left to answer.
    if (row.status === 'cancelled') throw new AppError(409, 'not_waiting', CANCELLED);
    if (row.status !== 'waiting' || !row.runId || !row.conversationId) throw new AppError(409, 'not_waiting', NOT_WAITING);
    const [batch] = await tx.select({ status: schema.batches.status }).from(schema.batches).where(eq(schema.batches.id, row.batchId));
    if (batch?.status !== 'running') throw new AppError(409, 'not_waiting', NOT_WAITING);
    // The question shown is the item's run's; the conversation must still stop there (nothing else continues it).
    const latest = await latestRun(row.conversationId);
    if (!latest || latest.id !== row.runId || latest.status !== 'interrupted') throw new AppError(409, 'not_waiting', NOT_WAITING);
    const interrupt = latest.interrupt as { type?: unknown; questionId?: unknown } | null;
    let answer: ItemAnswer;
    if (interrupt?.type === 'clarification') {
      if (input.answer === undefined) throw validationError({ answer: 'This item asked a question: answer it with text' });
      answer = { type: 'clarification', text: input.answer, questionId: typeof interrupt.questionId === 'string' ? interrupt.questionId : '', answerKey: input.answerKey };
    } else {
      checkInterruptResponse('This item', interrupt?.type === 'approval', input.response);
      answer = { type: 'interrupt', response: input.response, answerKey: input.answerKey };
    }
    const [updated] = await tx
      .update(schema.batchItems)
      .set({ status: 'queued', answer, runId: null, waitingSince: null })
      .where(and(eq(schema.batchItems.id, row.id), eq(schema.batchItems.status, 'waiting'), eq(schema.batchItems.lease, row.lease)))
      .returning();
    if (!updated) throw new AppError(409, 'not_waiting', NOT_WAITING);
    batchChanged(ownerId, row.batchId);
    return updated;
  });
  wakeScheduler();
  return item;
}

/** The run a waiting item stopped in (its question or approval), for the inbox's checks. */
export async function waitingItem(ownerId: string, itemId: string): Promise<BatchItem | undefined> {
  const [row] = await getDb()
    .select()
    .from(schema.batchItems)
    .where(and(eq(schema.batchItems.id, itemId), eq(schema.batchItems.ownerId, ownerId)));
  return row;
}
