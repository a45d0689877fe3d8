import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { teamBudgetState } from '@/lib/budget-state';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx } from '@/server/db';
import { TeamBudgetReachedError } from '@/server/budgets/team-budget';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { loadSchedulingView } from '@/server/scheduler/view';
import { admitJob } from '@/server/teams/execution';
import { recordMentions } from '@/server/teams/mentions';
import { sendRequest } from '@/server/teams/requests';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { updateTeamBudget } from '@/server/teams/team-budget';
import { getTeam } from '@/server/teams/teams';
import { conversationWith } from '../agents/helpers';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { seedRun } from './support';

const candidates = async () => (await loadSchedulingView()).queues.flatMap((q) => q.candidates.map((c) => c.jobId));
/** The job once it has completed (falsy until then), for until(). */
const completed = async (id: string) => {
  const row = await job(id);
  return row.status === 'completed' && row;
};
const setBudget = (teamId: string, tokenBudget: number | null) =>
  writeTx(async (tx) => {
    await tx.update(schema.teams).set({ tokenBudget }).where(eq(schema.teams.id, teamId));
  });
const jobsOfTeam = async (teamId: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId));

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** A team with `used` tokens already spent (a finished run of its first member) and the given budget. */
async function teamAt(used: number, budget: number | null) {
  const owner = await makeUser('owner');
  const { team } = await makeTeam(owner.id, ['A', 'B', 'C']);
  if (used > 0) await seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: used, teamId: team.id });
  await setBudget(team.id, budget);
  return { owner, team };
}

describe('team budget state', () => {
  it('warns from 80 % (at the line, not one below) and is reached at 100 % (at and one past)', () => {
    expect(LIMITS.budget.warnAt).toBe(0.8);
    expect(teamBudgetState(39_999, 50_000)).toBe('ok');
    expect(teamBudgetState(40_000, 50_000)).toBe('warning');
    expect(teamBudgetState(49_999, 50_000)).toBe('warning');
    expect(teamBudgetState(50_000, 50_000)).toBe('reached');
    expect(teamBudgetState(50_001, 50_000)).toBe('reached');
    // A line that is not a whole number rounds up: 80 % of 1,001 is 800.8, so 800 is below it and 801 is at it.
    expect(teamBudgetState(800, 1_001)).toBe('ok');
    expect(teamBudgetState(801, 1_001)).toBe('warning');
    // Floating point must not move the line: 70 % of 10 is exactly 7.
    expect(teamBudgetState(7, 10, 0.7)).toBe('warning');
    expect(teamBudgetState(1_000_000, null)).toBe('none');
  });

  it('the team JSON carries the budget, the usage and why work is held', async () => {
    const below = await teamAt(999, 1_000);
    expect(await getTeam(below.owner.id, below.team.id)).toMatchObject({ tokenBudget: 1_000, tokensUsed: 999, admissionHeld: null });
    const at = await teamAt(1_000, 1_000);
    expect(await getTeam(at.owner.id, at.team.id)).toMatchObject({ tokenBudget: 1_000, tokensUsed: 1_000, admissionHeld: 'team_budget' });
  });
});

describe('a team at its budget admits no new work', () => {
  it('one token below the budget: a request is queued and offered for admission', async () => {
    const { owner, team } = await teamAt(999, 1_000);
    const id = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply ok', draftKey: 'k' })).jobs[0]!.id;
    expect(await candidates()).toContain(id);
  });

  it('at the budget and one past: the person’s new request is refused with 409 team_budget_reached, nothing queued', async () => {
    for (const used of [1_000, 1_001]) {
      const { owner, team } = await teamAt(used, 1_000);
      let error: unknown;
      try {
        await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply no', draftKey: 'k' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TeamBudgetReachedError);
      expect(error).toMatchObject({ status: 409, code: 'team_budget_reached' });
      expect((error as Error).message).toMatch(/used its token budget \(1,00[01] of 1,000 tokens\)\. Raise the budget/);
      // What must not happen: a job waiting unseen behind a refusal.
      expect(await jobsOfTeam(team.id)).toHaveLength(0);
    }
  });

  it('a flood of sends at the budget: every one refused, none queued', async () => {
    const { owner, team } = await teamAt(1_000, 1_000);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        Promise.resolve().then(() => sendRequest(owner.id, team.id, { memberIds: [team.members[i % 3]!.id], text: `/reply ${i}`, draftKey: `f${i}` })),
      ),
    );
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as { code?: string }).code === 'team_budget_reached')).toBe(true);
    expect(await jobsOfTeam(team.id)).toHaveLength(0);
  });

  it('an @mention from a conversation to a member of a team at its budget is refused the same way', async () => {
    const { owner, team } = await teamAt(1_000, 1_000);
    const { conversation } = await conversationWith(owner.id);
    await expect(recordMentions(owner.id, conversation.id, { memberIds: [team.members[0]!.id], text: 'please', messageKey: 'm1' })).rejects.toThrow(
      TeamBudgetReachedError,
    );
    expect(await jobsOfTeam(team.id)).toHaveLength(0);
  });

  it('queued work (a handoff, or work queued before the budget was reached) is held, not offered; another team is not', async () => {
    const { owner, team } = await teamAt(0, 1_000);
    const { team: free } = await makeTeam(owner.id);
    const held = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply later', draftKey: 'k' })).jobs[0]!.id;
    const other = (await sendRequest(owner.id, free.id, { memberIds: [free.members[0]!.id], text: '/reply now', draftKey: 'k' })).jobs[0]!.id;
    expect(await candidates()).toEqual(expect.arrayContaining([held, other]));
    await seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    const after = await candidates();
    expect(after).toContain(other);
    expect(after).not.toContain(held);
    expect((await job(held)).status).toBe('queued');
    expect((await getTeam(owner.id, team.id)).admissionHeld).toBe('team_budget');
  });

  it('running work finishes: a job already running when the budget is reached completes', async () => {
    const { owner, team } = await teamAt(0, 1_000);
    const running = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/sleep 300\n/reply finished anyway', draftKey: 'r' })).jobs[0]!.id;
    const queued = (await sendRequest(owner.id, team.id, { memberIds: [team.members[1]!.id], text: '/reply held', draftKey: 'q' })).jobs[0]!.id;
    expect(await admitJob(running)).toBe(true);
    // The budget is used up while the first job holds its slot.
    await seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 10 });
    runtime.start();
    const done = await until(() => completed(running), 10_000, 'the running job');
    expect(done.result).toBe('finished anyway');
    // Several planning passes later, the queued one is still held.
    const passes = runtime.stats.passes;
    await until(() => runtime!.stats.passes >= passes + 5, 5_000, 'more planning passes');
    expect((await job(queued)).status).toBe('queued');
  });

  it('raising the budget re-admits held work and bumps the revision; clearing it (null) does too', async () => {
    const { owner, team } = await teamAt(1_000, 1_000);
    const { team: second } = await makeTeam(owner.id);
    // Work queued by a handoff-like path before the raise: put it in directly (the person's send is refused). The
    // scheduler starts only once the budget is back: a pass woken by the send itself could otherwise read the
    // team while its budget was lifted and admit the job, a race of this setup, not of the product.
    await setBudget(team.id, null);
    const held = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply after the raise', draftKey: 'h' })).jobs[0]!.id;
    await setBudget(team.id, 1_000);
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 60_000 }); // no tick: only the raise's wake can admit
    runtime.start();
    await until(() => runtime!.stats.passes > 0, 2_000, 'a first pass');
    runtime.wake();
    const passes = runtime.stats.passes;
    await until(() => runtime!.stats.passes > passes, 2_000, 'another pass');
    expect((await job(held)).status).toBe('queued');

    const revision = (await getTeam(owner.id, team.id)).revision;
    const raised = await updateTeamBudget(owner.id, team.id, { tokenBudget: 2_000 });
    expect(raised).toMatchObject({ tokenBudget: 2_000, tokensUsed: 1_000, admissionHeld: null });
    expect(raised.revision).toBeGreaterThan(revision);
    const finished = await until(() => completed(held), 10_000, 'the held job');
    expect(finished.result).toBe('after the raise');

    await seedRun({ ownerId: owner.id, conversationId: second.members[0]!.conversationId!, tokens: 5_000, teamId: second.id });
    await setBudget(second.id, 1_000);
    expect((await getTeam(owner.id, second.id)).admissionHeld).toBe('team_budget');
    expect(await updateTeamBudget(owner.id, second.id, { tokenBudget: null })).toMatchObject({ tokenBudget: null, admissionHeld: null });
    const next = (await sendRequest(owner.id, second.id, { memberIds: [second.members[0]!.id], text: '/reply unbounded', draftKey: 'n' })).jobs[0]!.id;
    expect((await until(() => completed(next), 10_000, 'the next job')).result).toBe('unbounded');
  });

  it('a crash between the raise and the wake loses nothing: the raise is durable and the next scheduler admits the held work', async () => {
    const { owner, team } = await teamAt(0, null);
    const held = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply after restart', draftKey: 'c' })).jobs[0]!.id;
    await seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    await setBudget(team.id, 1_000);
    expect(await candidates()).not.toContain(held);
    // No scheduler in this process (it "crashed"): the raise's wake reaches nobody.
    await updateTeamBudget(owner.id, team.id, { tokenBudget: 5_000 });
    expect((await job(held)).status).toBe('queued');
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 10 });
    runtime.start();
    expect((await until(() => completed(held), 10_000, 'the held job')).result).toBe('after restart');
  });
});
