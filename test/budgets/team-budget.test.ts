import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { teamBudgetState } from '@/lib/budget-state';
import { LIMITS } from '@/lib/limits';
import { getDb, schema } from '@/server/db';
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

const candidates = () => loadSchedulingView(getDb()).queues.flatMap((q) => q.candidates.map((c) => c.jobId));
const setBudget = (teamId: string, tokenBudget: number | null) =>
  getDb().update(schema.teams).set({ tokenBudget }).where(eq(schema.teams.id, teamId)).run();

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** A team with `used` tokens already spent (a finished run of its first member) and the given budget. */
async function teamAt(used: number, budget: number | null) {
  const owner = await makeUser('owner');
  const { team } = makeTeam(owner.id, ['A', 'B', 'C']);
  if (used > 0) seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: used, teamId: team.id });
  setBudget(team.id, budget);
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
    expect(getTeam(below.owner.id, below.team.id)).toMatchObject({ tokenBudget: 1_000, tokensUsed: 999, admissionHeld: null });
    const at = await teamAt(1_000, 1_000);
    expect(getTeam(at.owner.id, at.team.id)).toMatchObject({ tokenBudget: 1_000, tokensUsed: 1_000, admissionHeld: 'team_budget' });
  });
});

describe('a team at its budget admits no new work', () => {
  it('one token below the budget: a request is queued and offered for admission', async () => {
    const { owner, team } = await teamAt(999, 1_000);
    const id = sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply ok', draftKey: 'k' }).jobs[0]!.id;
    expect(candidates()).toContain(id);
  });

  it('at the budget and one past: the person’s new request is refused with 409 team_budget_reached, nothing queued', async () => {
    for (const used of [1_000, 1_001]) {
      const { owner, team } = await teamAt(used, 1_000);
      let error: unknown;
      try {
        sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply no', draftKey: 'k' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TeamBudgetReachedError);
      expect(error).toMatchObject({ status: 409, code: 'team_budget_reached' });
      expect((error as Error).message).toMatch(/used its token budget \(1,00[01] of 1,000 tokens\)\. Raise the budget/);
      // What must not happen: a job waiting unseen behind a refusal.
      expect(getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id)).all()).toHaveLength(0);
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
    expect(getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id)).all()).toHaveLength(0);
  });

  it('an @mention from a conversation to a member of a team at its budget is refused the same way', async () => {
    const { owner, team } = await teamAt(1_000, 1_000);
    const { conversation } = conversationWith(owner.id);
    expect(() => recordMentions(owner.id, conversation.id, { memberIds: [team.members[0]!.id], text: 'please', messageKey: 'm1' })).toThrow(
      TeamBudgetReachedError,
    );
    expect(getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, team.id)).all()).toHaveLength(0);
  });

  it('queued work (a handoff, or work queued before the budget was reached) is held, not offered; another team is not', async () => {
    const { owner, team } = await teamAt(0, 1_000);
    const { team: free } = makeTeam(owner.id);
    const held = sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply later', draftKey: 'k' }).jobs[0]!.id;
    const other = sendRequest(owner.id, free.id, { memberIds: [free.members[0]!.id], text: '/reply now', draftKey: 'k' }).jobs[0]!.id;
    expect(candidates()).toEqual(expect.arrayContaining([held, other]));
    seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    const after = candidates();
    expect(after).toContain(other);
    expect(after).not.toContain(held);
    expect(job(held).status).toBe('queued');
    expect(getTeam(owner.id, team.id).admissionHeld).toBe('team_budget');
  });

  it('running work finishes: a job already running when the budget is reached completes', async () => {
    const { owner, team } = await teamAt(0, 1_000);
    const running = sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/sleep 300\n/reply finished anyway', draftKey: 'r' }).jobs[0]!.id;
    const queued = sendRequest(owner.id, team.id, { memberIds: [team.members[1]!.id], text: '/reply held', draftKey: 'q' }).jobs[0]!.id;
    expect(admitJob(running)).toBe(true);
    // The budget is used up while the first job holds its slot.
    seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 10 });
    runtime.start();
    const done = await until(() => job(running).status === 'completed' && job(running), 10_000, 'the running job');
    expect(done.result).toBe('finished anyway');
    // Several planning passes later, the queued one is still held.
    const passes = runtime.stats.passes;
    await until(() => runtime!.stats.passes >= passes + 5, 5_000, 'more planning passes');
    expect(job(queued).status).toBe('queued');
  });

  it('raising the budget re-admits held work and bumps the revision; clearing it (null) does too', async () => {
    const { owner, team } = await teamAt(1_000, 1_000);
    const { team: second } = makeTeam(owner.id);
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 60_000 }); // no tick: only the raise's wake can admit
    runtime.start();
    // Work queued by a handoff-like path before the raise: put it in directly (the person's send is refused).
    setBudget(team.id, null);
    const held = sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply after the raise', draftKey: 'h' }).jobs[0]!.id;
    setBudget(team.id, 1_000);
    await until(() => runtime!.stats.passes > 0, 2_000, 'a first pass');
    runtime.wake();
    const passes = runtime.stats.passes;
    await until(() => runtime!.stats.passes > passes, 2_000, 'another pass');
    expect(job(held).status).toBe('queued');

    const revision = getTeam(owner.id, team.id).revision;
    const raised = updateTeamBudget(owner.id, team.id, { tokenBudget: 2_000 });
    expect(raised).toMatchObject({ tokenBudget: 2_000, tokensUsed: 1_000, admissionHeld: null });
    expect(raised.revision).toBeGreaterThan(revision);
    const finished = await until(() => job(held).status === 'completed' && job(held), 10_000, 'the held job');
    expect(finished.result).toBe('after the raise');

    seedRun({ ownerId: owner.id, conversationId: second.members[0]!.conversationId!, tokens: 5_000, teamId: second.id });
    setBudget(second.id, 1_000);
    expect(getTeam(owner.id, second.id).admissionHeld).toBe('team_budget');
    expect(updateTeamBudget(owner.id, second.id, { tokenBudget: null })).toMatchObject({ tokenBudget: null, admissionHeld: null });
    const next = sendRequest(owner.id, second.id, { memberIds: [second.members[0]!.id], text: '/reply unbounded', draftKey: 'n' }).jobs[0]!.id;
    expect((await until(() => job(next).status === 'completed' && job(next), 10_000, 'the next job')).result).toBe('unbounded');
  });

  it('a crash between the raise and the wake loses nothing: the raise is durable and the next scheduler admits the held work', async () => {
    const { owner, team } = await teamAt(0, null);
    const held = sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply after restart', draftKey: 'c' }).jobs[0]!.id;
    seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 1_000, teamId: team.id });
    setBudget(team.id, 1_000);
    expect(candidates()).not.toContain(held);
    // No scheduler in this process (it "crashed"): the raise's wake reaches nobody.
    updateTeamBudget(owner.id, team.id, { tokenBudget: 5_000 });
    expect(job(held).status).toBe('queued');
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 10 });
    runtime.start();
    expect((await until(() => job(held).status === 'completed' && job(held), 10_000, 'the held job')).result).toBe('after restart');
  });
});
