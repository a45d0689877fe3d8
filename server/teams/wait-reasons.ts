import 'server-only';
import { and, eq, gt } from 'drizzle-orm';
import type { ApiTeamWaits } from '@/lib/types/team';
import { ownersAtDailyCap } from '@/server/budgets/daily-cap';
import { teamsAtBudget } from '@/server/budgets/team-budget';
import { readTx, schema, type Db } from '@/server/db';
import { currentScheduler } from '@/server/scheduler/runtime';
import { loadSchedulingView } from '@/server/scheduler/view';
import { whyWaiting } from '@/server/scheduler/why-waiting';
import { requireTeam } from './teams';

/**
 * Why each of the team's queued jobs waits (GET /teams/:id/waiting), read in one snapshot with the team's revision
 * from the scheduler's own view and rotation. The view counts only queued heads against budgets; a job queued
 * behind a running one in a team (or account) at its budget is told the budget too, since that is what will hold
 * it next. Another owner's team is a 404; "ahead" counts every account's admissible work (a number, nothing else).
 * A running job whose model call waits for room at its provider (server/providers/capacity) says so too.
 */
export async function teamWaitReasons(ownerId: string, teamId: string): Promise<ApiTeamWaits> {
  return readTx(async (db) => {
    const team = await requireTeam(ownerId, teamId, db);
    const view = await loadSchedulingView({}, { everyUnfinished: true });
    const jobIds = new Set(view.unfinished.filter((r) => r.teamId === teamId).map((r) => r.id));
    if (jobIds.size === 0) return { revision: team.revision, reasons: {} };
    const heldTeams = new Set([...view.heldTeams, ...(await teamsAtBudget([teamId]))]);
    const heldOwners = new Set([...view.heldOwners, ...(await ownersAtDailyCap([ownerId]))]);
    const reasons = whyWaiting({ ...view, heldTeams, heldOwners }, currentScheduler()?.currentRound, jobIds);
    for (const jobId of await jobsWaitingForProvider(db, teamId)) reasons.set(jobId, { kind: 'provider' });
    return { revision: team.revision, reasons: Object.fromEntries(reasons) };
  });
}

/** The team's running jobs whose run has a model call waiting for its provider (a live, unexpired wait). */
async function jobsWaitingForProvider(db: Db, teamId: string): Promise<string[]> {
  const { jobs, providerCalls } = schema;
  const rows = await db
    .selectDistinct({ id: jobs.id })
    .from(jobs)
    .innerJoin(providerCalls, and(eq(providerCalls.runId, jobs.runId), eq(providerCalls.state, 'waiting'), gt(providerCalls.expiresAt, Date.now())))
    .where(and(eq(jobs.teamId, teamId), eq(jobs.status, 'running')));
  return rows.map((r) => r.id);
}
