import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { RespondInput } from '@/lib/schemas/team';
import type { ApiJob, ApiWaiting } from '@/lib/types/team';
import { checkInterruptResponse } from '@/server/agents/interrupt-response';
import { latestRun } from '@/server/agents/run-store';
import { schema, writeTx } from '@/server/db';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import type { PendingAnswer } from './execution';
import { touchTeam } from './revision';
import { toApiJob } from './serialize';
import { requireTeam } from './teams';

export const NOT_WAITING = 'Request is not waiting for input';
export const CANCELLED = 'This request was cancelled: there is nothing to answer any more. Retry it to ask again.';
// An approval as much as a question: the code keeps its old name for API clients.
export const CLARIFICATION_CHANGED = 'The member conversation moved on since this request paused; open it to see what happened, or cancel the request';

/**
 * Record the person's answer to a waiting job. The job keeps its conversation's head and waits for a free
 * slot like new work; the scheduler then continues the member conversation (a human message with
 * provenance for a clarification, Command({ resume }) for an interrupt). Idempotent by answerKey.
 */
export async function respondToJob(ownerId: string, teamId: string, jobId: string, input: RespondInput): Promise<ApiJob> {
  const job = await writeTx(async (tx) => {
    await requireTeam(ownerId, teamId, tx);
    const [row] = await tx.select().from(schema.jobs).where(and(eq(schema.jobs.id, jobId), eq(schema.jobs.teamId, teamId))).limit(1);
    if (!row) throw notFound('Request');
    if (row.answerKey === input.answerKey) return row;
    if (row.status === 'cancelled' || row.status === 'cancelling') throw new AppError(409, 'not_waiting', CANCELLED);
    if (row.status !== 'waiting_input') throw new AppError(409, 'not_waiting', NOT_WAITING);
    const waiting = row.waiting as ApiWaiting;
    const latest = await latestRun(row.conversationId);
    if (!latest || latest.id !== row.runId || latest.status !== 'interrupted') {
      throw new AppError(409, 'clarification_changed', CLARIFICATION_CHANGED);
    }
    let answer: PendingAnswer;
    if (waiting.type === 'clarification') {
      if (input.answer === undefined) throw validationError({ answer: 'This request asked a question: answer it with text' });
      answer = { type: 'clarification', text: input.answer, questionId: waiting.questionId, answerKey: input.answerKey };
    } else {
      checkInterruptResponse('This request', (waiting.payload as { type?: unknown } | null)?.type === 'approval', input.response);
      answer = { type: 'interrupt', response: input.response, answerKey: input.answerKey };
    }
    const [updated] = await tx
      .update(schema.jobs)
      .set({ status: 'resuming', answer, answerKey: input.answerKey, updatedAt: new Date() })
      .where(eq(schema.jobs.id, jobId))
      .returning();
    await touchTeam(tx, teamId, [jobId]);
    return updated!;
  });
  wakeScheduler();
  return toApiJob(job, null, true);
}
