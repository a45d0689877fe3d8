import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { ApiJob } from '@/lib/types/team';
import { endCancelledWait } from '@/server/agents/team-request-wait';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import type { Job } from '@/server/db/schema';
import { notFound } from '@/server/http/errors';
import { isTerminal, touchTeam } from './revision';
import { toApiJob } from './serialize';
import { appendShared } from './shared-record';
import { requireTeam } from './teams';
import { stopJobRun, wakeScheduler } from '@/server/scheduler/signal';

/**
 * Cancel a job. Not admitted (queued, an answer waiting for a slot) or waiting for input → cancelled at once;
 * running → cancelling, and the worker stops the run (checkpoints kept) and records cancelled.
 * Cancelling a finished job changes nothing.
 */
export async function cancelJob(ownerId: string, teamId: string, jobId: string): Promise<ApiJob> {
  const outcome = await writeTx(async (tx) => {
    await requireTeam(ownerId, teamId, tx);
    const [job] = await tx.select().from(schema.jobs).where(and(eq(schema.jobs.id, jobId), eq(schema.jobs.teamId, teamId)));
    if (!job) throw notFound('Request');
    const result = await cancelInTx(tx, job);
    if (result.changed) await touchTeam(tx, teamId, [jobId]);
    return result;
  });
  if (outcome.stopRun) stopJobRun(outcome.job.id);
  wakeScheduler();
  return toApiJob(outcome.job, null, true);
}

/**
 * One job's cancel inside the caller's transaction, without the revision bump (the caller bumps once for all it
 * changed): cancelJob and cancel-all share it, so cancelling everything answers exactly as one by one.
 */
export async function cancelInTx(tx: Db, job: Job): Promise<{ job: Job; stopRun: boolean; changed: boolean }> {
  if (isTerminal(job.status) || job.status === 'cancelling') return { job, stopRun: false, changed: false };
  const now = new Date();
  const immediate = job.status === 'queued' || job.status === 'resuming' || job.status === 'waiting_input';
  const [updated] = await tx
    .update(schema.jobs)
    .set(immediate ? { status: 'cancelled', completedAt: now, updatedAt: now, answer: null } : { status: 'cancelling', updatedAt: now })
    .where(eq(schema.jobs.id, job.id))
    .returning();
  if (immediate) {
    // Its run stops waiting too: the member's conversation no longer offers the question or approval (ADR 006).
    if (job.runId && job.status !== 'queued') await endCancelledWait(tx, { id: job.runId, conversationId: job.conversationId });
    await appendShared(tx, {
      teamId: job.teamId,
      jobId: job.id,
      kind: 'cancelled',
      senderMemberId: null,
      senderLabel: 'You',
      recipientMemberId: job.memberId,
      text: 'Request cancelled',
    });
  }
  return { job: updated!, stopRun: !immediate, changed: true };
}

export async function getJob(ownerId: string, teamId: string, jobId: string): Promise<Job> {
  await requireTeam(ownerId, teamId);
  const [job] = await getDb().select().from(schema.jobs).where(and(eq(schema.jobs.id, jobId), eq(schema.jobs.teamId, teamId)));
  if (!job) throw notFound('Request');
  return job;
}
