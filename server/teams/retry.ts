import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { RetryJobInput } from '@/lib/schemas/team-steer';
import type { ApiJob } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { assertTeamBudgetOpen } from '@/server/budgets/team-budget';
import { AppError, notFound, validationError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { requestCriteria } from './member-input';
import { queueRequest } from './queue';
import { touchTeam } from './revision';
import { toApiJob } from './serialize';
import { requireTeam, teamMembers } from './teams';

const RETRYABLE = new Set(['failed', 'cancelled']);

/**
 * Retry a failed or cancelled request: a new request with the same text (and acceptance criteria), to the same
 * member or — with `memberId` — another one, linked to the original (jobs.retry_of_job_id). It keeps the original's
 * author: a member's handoff stays that member's (its text never gains the person's trust, ADR 012, nor is it
 * credited to "You" in the feed, the context or the export) and its result returns to that member; an @mention from a
 * chat returns its result to that chat. Pressing Retry is the person's act, so the team's budget is checked as for
 * the person's own send.
 * Idempotent by `requestId`: the same id again answers the request it made, even after the original changed; the
 * same id for another original or member is refused (409 request_key_reused). A request still unfinished or
 * completed is refused (409 not_retryable). The new request meets every rule a send does: the team ready, its
 * budget open, its 100-request capacity.
 */
export async function retryJob(ownerId: string, teamId: string, jobId: string, input: RetryJobInput): Promise<{ job: ApiJob; created: boolean }> {
  const result = await writeTx(async (tx) => {
    const team = await requireTeam(ownerId, teamId, tx);
    const [original] = await tx.select().from(schema.jobs).where(and(eq(schema.jobs.id, jobId), eq(schema.jobs.teamId, teamId)));
    if (!original) throw notFound('Request');
    const requestKey = `retry:${input.requestId}`;
    const [earlier] = await tx
      .select()
      .from(schema.jobs)
      .where(and(eq(schema.jobs.teamId, teamId), eq(schema.jobs.kind, 'request'), eq(schema.jobs.requestKey, requestKey)))
      .limit(1);
    if (earlier && earlier.retryOfJobId !== jobId) {
      throw new AppError(409, 'request_key_reused', 'This request id was already used for a different request');
    }
    if (!earlier) {
      if (original.kind !== 'request') throw new AppError(409, 'not_retryable', 'Only a request can be retried, not a returned result');
      if (!RETRYABLE.has(original.status)) {
        throw new AppError(409, 'not_retryable', `Only a failed or cancelled request can be retried; this one is ${original.status.replace('_', ' ')}`);
      }
      if (team.status !== 'ready') throw new AppError(409, 'team_not_ready', 'The team is not ready; reconnect it from the Manage menu');
    }
    const memberId = input.memberId ?? original.memberId;
    const members = await teamMembers(teamId, tx);
    const member = members.find((m) => m.id === memberId);
    if (!member) throw validationError({ memberId: `Not a member of this team: ${memberId ?? '(none)'}` });
    if (member.id === original.sourceMemberId) throw validationError({ memberId: 'This member sent the request; it can’t be sent to itself' });
    if (!earlier && original.sourceMemberId) await assertTeamBudgetOpen(teamId);
    const sender = original.sourceMemberId ? (members.find((m) => m.id === original.sourceMemberId)?.name ?? 'A former member') : 'You';
    const outcome = await queueRequest(tx, {
      teamId,
      ownerId,
      member,
      text: original.text,
      requestKey,
      sourceMemberId: original.sourceMemberId,
      sourceConversationId: original.sourceConversationId,
      senderLabel: sender,
      // A new chain of its own, as the person's retry: the original's chain may have finished long ago.
      parent: null,
      acceptanceCriteria: requestCriteria(original.frozenInput),
    });
    if (!outcome.created) return { job: outcome.job, created: false };
    const [job] = await tx.update(schema.jobs).set({ retryOfJobId: original.id }).where(eq(schema.jobs.id, outcome.job.id)).returning();
    await touchTeam(tx, teamId, [job!.id]);
    return { job: job!, created: true };
  });
  if (result.created) wakeScheduler();
  return { job: toApiJob(result.job, null, true), created: result.created };
}
