import { signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const teamRoute = await import('@/app/api/v1/teams/[id]/route');
const teamsRoute = await import('@/app/api/v1/teams/route');
const { LIMITS } = await import('@/lib/limits');
const { getDb, schema } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { call, makeAgents, makeTeam } = await import('../support/teams');
const { seedRun } = await import('./support');

type User = Awaited<ReturnType<typeof makeUser>>;
const { min, max } = LIMITS.budget.team;
const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const patch = (user: User, id: string, body: unknown) => call(teamRoute.PATCH, { method: 'PATCH', headers: user.auth, params: { id }, body });

describe('PATCH /api/v1/teams/:id { tokenBudget }', () => {
  it('sets the budget at the minimum and the maximum, clears it with null, and answers the team JSON', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    await seedRun({ ownerId: alice.id, conversationId: team.members[0]!.conversationId!, tokens: 12_340, teamId: team.id });
    const atMin = await patch(alice, team.id, { tokenBudget: min });
    expect(atMin.status).toBe(200);
    expect(atMin.body).toMatchObject({ id: team.id, tokenBudget: min, tokensUsed: 12_340, admissionHeld: 'team_budget' });
    const atMax = await patch(alice, team.id, { tokenBudget: max });
    expect(atMax.body).toMatchObject({ tokenBudget: max, admissionHeld: null });
    expect((await teamRow(team.id)).tokenBudget).toBe(max);
    const cleared = await patch(alice, team.id, { tokenBudget: null });
    expect(cleared.body).toMatchObject({ tokenBudget: null });
    expect((await teamRow(team.id)).tokenBudget).toBeNull();
    const got = await call(teamRoute.GET, { headers: alice.auth, params: { id: team.id } });
    expect(got.body).toMatchObject({ tokenBudget: null, tokensUsed: 12_340 });
  });

  it('refuses one past each limit, fractions, strings (ASCII, full-width digits, CJK, emoji) and unknown fields, naming tokenBudget', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    await patch(alice, team.id, { tokenBudget: 5_000 });
    const bad: Array<[unknown, RegExp]> = [
      [{ tokenBudget: min - 1 }, /at least 1,000 tokens/],
      [{ tokenBudget: max + 1 }, /at most 1,000,000,000 tokens/],
      [{ tokenBudget: 1_500.5 }, /whole number/],
      [{ tokenBudget: '5000' }, /whole number/],
      [{ tokenBudget: '５０００' }, /whole number/],
      [{ tokenBudget: '五千' }, /whole number/],
      [{ tokenBudget: '🪙' }, /whole number/],
      [{}, /.+/],
    ];
    for (const [body, message] of bad) {
      const res = await patch(alice, team.id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((res.body.error as { fields: Record<string, string> }).fields.tokenBudget).toMatch(message);
    }
    // name and goal are team settings too now (team-settings.test.ts); a field the PATCH doesn't know is refused.
    const extra = await patch(alice, team.id, { tokenBudget: 6_000, members: [] });
    expect(extra.status).toBe(422);
    // What must not happen: a refused body changing the budget (or anything else).
    expect(await teamRow(team.id)).toMatchObject({ tokenBudget: 5_000, name: team.name });
  });

  it('another owner’s team answers 404 exactly like a missing one and is not changed', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const { team } = await makeTeam(alice.id);
    await patch(alice, team.id, { tokenBudget: 2_000 });
    const before = await teamRow(team.id);
    const foreign = await patch(mallory, team.id, { tokenBudget: max });
    const missing = await patch(mallory, crypto.randomUUID(), { tokenBudget: max });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(await teamRow(team.id)).toEqual(before);
    const anonymous = await call(teamRoute.PATCH, { method: 'PATCH', params: { id: team.id }, body: { tokenBudget: max } });
    expect(anonymous.status).toBe(401);
    expect(await teamRow(team.id)).toEqual(before);
  });

  it('team creation accepts an optional budget within the same limits', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['Writer', 'Critic']);
    const base = { name: 'Launch', goal: 'Ship', agentIds: agents.map((a) => a.id) };
    const created = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...base, requestId: 'r1', tokenBudget: 50_000 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ tokenBudget: 50_000, tokensUsed: 0, admissionHeld: null });
    const none = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...base, name: 'Launch 2', requestId: 'r2' } });
    expect(none.body).toMatchObject({ tokenBudget: null });
    const low = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...base, requestId: 'r3', tokenBudget: min - 1 } });
    expect(low.status).toBe(422);
    expect(await getDb().select().from(schema.teams).where(eq(schema.teams.ownerId, alice.id))).toHaveLength(2);
  });
});

describe('updateTeamBudgetAction', () => {
  it('sets the signed-in owner’s budget; another owner’s id answers not_found and changes nothing; range errors name the field', async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const { team } = await makeTeam(alice.id);
    signIn(alice);
    expect(await actions.updateTeamBudgetAction(team.id, { tokenBudget: 3_000 })).toMatchObject({ ok: true, data: { id: team.id, tokenBudget: 3_000 } });
    expect(await actions.updateTeamBudgetAction(team.id, { tokenBudget: max + 1 })).toMatchObject({
      ok: false,
      error: { code: 'validation_error', fields: { tokenBudget: expect.stringMatching(/at most/) } },
    });
    signIn(mallory);
    expect(await actions.updateTeamBudgetAction(team.id, { tokenBudget: max })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await teamRow(team.id)).tokenBudget).toBe(3_000);
  });
});
