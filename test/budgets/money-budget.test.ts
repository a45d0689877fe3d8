import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const teamRoute = await import('@/app/api/v1/teams/[id]/route');
const teamsRoute = await import('@/app/api/v1/teams/route');
const exportRoute = await import('@/app/api/v1/teams/[id]/export/route');
const { teamBudgetStanding } = await import('@/lib/budget-state');
const { getDb, schema } = await import('@/server/db');
const { TeamBudgetReachedError } = await import('@/server/budgets/team-budget');
const { teamSpend } = await import('@/server/budgets/team-totals');
const { SchedulerRuntime } = await import('@/server/scheduler/runtime');
const { loadSchedulingView } = await import('@/server/scheduler/view');
const { sendRequest } = await import('@/server/teams/requests');
const { teamJobs } = await import('@/server/teams/scheduler-jobs');
const { getTeam } = await import('@/server/teams/teams');
const { teamRuns } = await import('@/server/teams/runs-timeline');
const { job } = await import('../support/scheduler');
const { call, makeAgents, makeTeam } = await import('../support/teams');
const { makeUser } = await import('../support/users');
const { until } = await import('../support/wait');
const { seedRun } = await import('./support');

/**
 * A team budget in money (ADR 048): the known costs of the team's finished runs against the budget, enforced
 * exactly as the token budget (409 team_budget_reached for a person's request, queued work held, the same team
 * JSON); runs of unknown cost are counted apart and reported, never as $0.
 */
type User = Awaited<ReturnType<typeof makeUser>>;
const USD = 1_000_000_000; // nano-dollars
const CENT = USD / 100;
const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const patch = (user: User, id: string, body: unknown) => call(teamRoute.PATCH, { method: 'PATCH', headers: user.auth, params: { id }, body });
const candidates = async () => (await loadSchedulingView()).queues.flatMap((q) => q.candidates.map((c) => c.jobId));
const jobsOfTeam = async (teamId: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId));

let runtime: InstanceType<typeof SchedulerRuntime> | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** A team whose finished runs cost `spent` nano-dollars (plus `unknown` runs of unknown cost), with a $10.00 budget. */
async function teamSpent(spent: number, opts: { unknown?: number; budget?: string } = {}) {
  const owner = await makeUser('owner');
  const { team } = await makeTeam(owner.id, ['A', 'B', 'C']);
  const conversationId = team.members[2]!.conversationId!;
  if (spent > 0) await seedRun({ ownerId: owner.id, conversationId, tokens: 100, teamId: team.id, costNanos: spent });
  for (let i = 0; i < (opts.unknown ?? 0); i++) await seedRun({ ownerId: owner.id, conversationId, tokens: 100, teamId: team.id, costNanos: null });
  expect((await patch(owner, team.id, { moneyBudget: opts.budget ?? '10.00' })).status).toBe(200);
  return { owner, team };
}

describe('a team’s spend', () => {
  it('sums known costs exactly and counts unknown ones apart; another team’s runs are not counted', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id, ['A', 'B']);
    const { team: other } = await makeTeam(owner.id, ['C', 'D']);
    const c = team.members[0]!.conversationId!;
    // 0.1 + 0.2 dollars: exactly 0.3 (no binary float on the way).
    await seedRun({ ownerId: owner.id, conversationId: c, tokens: 10, teamId: team.id, costNanos: USD / 10 });
    await seedRun({ ownerId: owner.id, conversationId: c, tokens: 10, teamId: team.id, costNanos: (2 * USD) / 10 });
    await seedRun({ ownerId: owner.id, conversationId: c, tokens: 10, teamId: team.id, costNanos: null });
    await seedRun({ ownerId: owner.id, conversationId: other.members[0]!.conversationId!, tokens: 10, teamId: other.id, costNanos: 5 * USD });
    expect(await teamSpend(team.id)).toEqual({ nanos: (3 * USD) / 10, unknownRuns: 1 });
    expect(await getTeam(owner.id, team.id)).toMatchObject({ spent: '0.30', unknownCostRuns: 1, moneyBudget: null, tokensUsed: 30 });
  });
});

describe('a team at its money budget admits no new work', () => {
  it('one cent below: a request is queued and offered for admission', async () => {
    const { owner, team } = await teamSpent(10 * USD - CENT);
    expect(await getTeam(owner.id, team.id)).toMatchObject({ moneyBudget: '10.00', spent: '9.99', admissionHeld: null });
    const id = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply ok', draftKey: 'k' })).jobs[0]!.id;
    expect(await candidates()).toContain(id);
  });

  it('one nano-dollar below is still below; at the budget and one past, 409 team_budget_reached and nothing queued', async () => {
    const below = await teamSpent(10 * USD - 1);
    await expect(sendRequest(below.owner.id, below.team.id, { memberIds: [below.team.members[0]!.id], text: '/reply ok', draftKey: 'k' })).resolves.toBeTruthy();
    for (const spent of [10 * USD, 10 * USD + 1]) {
      const { owner, team } = await teamSpent(spent);
      const error = await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply no', draftKey: 'k' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TeamBudgetReachedError);
      expect(error).toMatchObject({ status: 409, code: 'team_budget_reached' });
      expect((error as Error).message).toMatch(/spent its budget \(\$10\.00 of \$10\.00\)\. Raise the budget/);
      expect((await getTeam(owner.id, team.id)).admissionHeld).toBe('team_budget');
      // What must not happen: a job waiting unseen behind a refusal.
      expect(await jobsOfTeam(team.id)).toHaveLength(0);
    }
  });

  it('the same 409 through the API', async () => {
    const { owner, team } = await teamSpent(10 * USD);
    const requests = await import('@/app/api/v1/teams/[id]/requests/route');
    const res = await call(requests.POST, { method: 'POST', headers: owner.auth, params: { id: team.id }, body: { memberIds: [team.members[0]!.id], text: 'hi', draftKey: 'k' } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'team_budget_reached' } });
  });

  it('runs of unknown cost are not counted as spend: the team stays open and says its spend is partly unknown', async () => {
    const { owner, team } = await teamSpent(5 * USD, { unknown: 3 });
    const json = await getTeam(owner.id, team.id);
    expect(json).toMatchObject({ moneyBudget: '10.00', spent: '5.00', unknownCostRuns: 3, admissionHeld: null });
    const standing = teamBudgetStanding(json);
    expect(standing).toMatchObject({ kind: 'money', state: 'ok', usage: '$5.00 / $10.00', percent: 50, unknownNote: '3 runs of unknown cost are not counted' });
  });

  it('queued work is held once the spend reaches the budget, and a raise re-admits it', async () => {
    const { owner, team } = await teamSpent(0);
    const held = (await sendRequest(owner.id, team.id, { memberIds: [team.members[0]!.id], text: '/reply after the raise', draftKey: 'h' })).jobs[0]!.id;
    expect(await candidates()).toContain(held);
    await seedRun({ ownerId: owner.id, conversationId: team.members[2]!.conversationId!, tokens: 10, teamId: team.id, costNanos: 10 * USD });
    expect(await candidates()).not.toContain(held);
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 10 });
    runtime.start();
    const passes = runtime.stats.passes;
    await until(() => runtime!.stats.passes >= passes + 5, 5_000, 'planning passes');
    expect((await job(held)).status).toBe('queued');
    const raised = await patch(owner, team.id, { moneyBudget: '20' });
    expect(raised.body).toMatchObject({ moneyBudget: '20.00', spent: '10.00', admissionHeld: null });
    const done = await until(async () => {
      const row = await job(held);
      return row.status === 'completed' && row;
    }, 10_000, 'the held job');
    expect(done.result).toBe('after the raise');
  });
});

describe('PATCH /api/v1/teams/:id { moneyBudget }', () => {
  it('sets it at the minimum and the maximum; a money budget replaces a token budget and the other way round; null clears it', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    await patch(alice, team.id, { tokenBudget: 5_000 });
    const atMin = await patch(alice, team.id, { moneyBudget: '0.01' });
    expect(atMin.status).toBe(200);
    expect(atMin.body).toMatchObject({ moneyBudget: '0.01', tokenBudget: null });
    expect(await teamRow(team.id)).toMatchObject({ moneyBudgetNanos: CENT, tokenBudget: null });
    expect((await patch(alice, team.id, { moneyBudget: '1000000' })).body).toMatchObject({ moneyBudget: '1000000.00' });
    expect((await patch(alice, team.id, { tokenBudget: 9_000 })).body).toMatchObject({ tokenBudget: 9_000, moneyBudget: null });
    await patch(alice, team.id, { moneyBudget: '3.50' });
    expect((await patch(alice, team.id, { moneyBudget: null })).body).toMatchObject({ moneyBudget: null, tokenBudget: null });
  });

  it('refuses one past each limit, both kinds at once, numbers, and text that is no amount (CJK, full-width, emoji), naming the field', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    await patch(alice, team.id, { moneyBudget: '7.00' });
    const bad: Array<[unknown, string, RegExp]> = [
      [{ moneyBudget: '0.00' }, 'moneyBudget', /from \$0\.01 to \$1,000,000/],
      [{ moneyBudget: '1000000.01' }, 'moneyBudget', /from \$0\.01 to \$1,000,000/],
      [{ moneyBudget: '1.005' }, 'moneyBudget', /2 decimal places/],
      [{ moneyBudget: 5 }, 'moneyBudget', /as text/],
      [{ moneyBudget: '五' }, 'moneyBudget', /as text/],
      [{ moneyBudget: '５' }, 'moneyBudget', /as text/],
      [{ moneyBudget: '💰' }, 'moneyBudget', /as text/],
      [{ moneyBudget: '5', tokenBudget: 5_000 }, 'moneyBudget', /tokens or in money, not both/],
    ];
    for (const [body, field, message] of bad) {
      const res = await patch(alice, team.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body.error as { fields: Record<string, string> }).fields[field]).toMatch(message);
    }
    // What must not happen: a refused body changing the budget.
    expect(await teamRow(team.id)).toMatchObject({ moneyBudgetNanos: 7 * USD, tokenBudget: null });
  });

  it('another owner’s team answers 404 exactly like a missing one; its budget and spend are neither read nor changed', async () => {
    const mallory = await makeUser('mallory');
    const { team } = await teamSpent(3 * USD);
    const before = await teamRow(team.id);
    const foreign = await patch(mallory, team.id, { moneyBudget: '1000000' });
    const missing = await patch(mallory, crypto.randomUUID(), { moneyBudget: '1000000' });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    const read = await call(teamRoute.GET, { headers: mallory.auth, params: { id: team.id } });
    expect(read.status).toBe(404);
    expect(JSON.stringify(read.body)).not.toContain('3.00');
    await expect(teamRuns(mallory.id, team.id, { from: new Date(0), to: new Date(Date.now() + 60_000) })).rejects.toMatchObject({ status: 404 });
    expect(await teamRow(team.id)).toEqual(before);
  });

  it('team creation accepts a money budget; both kinds at once is refused and nothing is created', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['Writer', 'Critic']);
    const base = { name: 'Launch', goal: 'Ship', agentIds: agents.map((a) => a.id) };
    const created = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...base, requestId: 'r1', moneyBudget: '25' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ moneyBudget: '25.00', tokenBudget: null, spent: '0.00', unknownCostRuns: 0, admissionHeld: null });
    const both = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...base, name: 'Both', requestId: 'r2', moneyBudget: '25', tokenBudget: 5_000 } });
    expect(both.status).toBe(422);
    expect(await getDb().select().from(schema.teams).where(eq(schema.teams.ownerId, alice.id))).toHaveLength(1);
    const exported = await call(exportRoute.GET, { headers: alice.auth, params: { id: (created.body as { id: string }).id }, url: 'http://localhost/x?format=json' });
    expect(exported.status).toBe(200);
    expect(JSON.parse(exported.raw).team).toMatchObject({ tokenBudget: null, moneyBudget: '25.00', tokensUsed: 0, spent: '0.00', unknownCostRuns: 0 });
  });

  it('the export carries the spend beside the tokens, and says how many runs’ cost is unknown (never counted as $0)', async () => {
    const { owner, team } = await teamSpent(1_234_500_000, { unknown: 2 });
    const json = await call(exportRoute.GET, { headers: owner.auth, params: { id: team.id }, url: 'http://localhost/x?format=json' });
    expect(JSON.parse(json.raw).team).toMatchObject({ moneyBudget: '10.00', tokensUsed: 300, spent: '1.2345', unknownCostRuns: 2 });
    const res = await exportRoute.GET(new Request('http://localhost/x?format=md', { headers: owner.auth }), { params: Promise.resolve({ id: team.id }) });
    // For people, rounded to the cent past a dollar; the JSON above keeps the exact figure.
    expect(await res.text()).toContain('## Usage\n\n300 tokens · $1.23 (2 runs of unknown cost not counted)\n');
  });

  it('the export says the cost is unknown, not $0.00, when no finished run’s cost is known (as the team header does)', async () => {
    const { owner, team } = await teamSpent(0, { unknown: 3 });
    const res = await exportRoute.GET(new Request('http://localhost/x?format=md', { headers: owner.auth }), { params: Promise.resolve({ id: team.id }) });
    const text = await res.text();
    expect(text).toContain('## Usage\n\n300 tokens · cost unknown (3 runs of unknown cost)\n');
    expect(text).not.toContain('$0.00');
  });
});

describe('updateTeamBudgetAction in money', () => {
  it('sets the owner’s money budget; another owner gets not_found; a range error names moneyBudget', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    expect(await actions.updateTeamBudgetAction(team.id, { moneyBudget: '12.50' })).toMatchObject({ ok: true, data: { id: team.id, moneyBudget: '12.50' } });
    expect(await actions.updateTeamBudgetAction(team.id, { moneyBudget: '0' })).toMatchObject({
      ok: false,
      error: { code: 'validation_error', fields: { moneyBudget: expect.stringMatching(/from \$0\.01/) } },
    });
    signIn(mallory);
    expect(await actions.updateTeamBudgetAction(team.id, { moneyBudget: '1000000' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await teamRow(team.id)).moneyBudgetNanos).toBe(12.5 * USD);
  });
});
