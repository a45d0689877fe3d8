import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as cloneRoute from '@/app/api/v1/teams/[id]/clone/route';
import * as requestsRoute from '@/app/api/v1/teams/[id]/requests/route';
import { LIMITS } from '@/lib/limits';
import { cloneName } from '@/lib/team-clone-name';
import { measureText } from '@/lib/text-bounds';
import { getDb, schema } from '@/server/db';
import { statement, type Param } from '@/server/db/statement';
import { publishState } from '@/server/teams/state';
import { updateTeamSettings } from '@/server/teams/team-settings';
import { createTeam, getTeam } from '@/server/teams/teams';
import { makeUser } from '../support/users';
import { call, makeAgents, makeTeam } from '../support/teams';

const rid = () => crypto.randomUUID();
const teamCount = async (ownerId: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.ownerId, ownerId))).length;
const teamRow = async (id: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, id)))[0]!;
const count = async (text: string, ...args: Param[]) => (await statement(text).get<{ n: number }>(...args))!.n;

/** Fill the team to its request limit (50 sends to two members = 100 requests). */
async function fill(auth: Record<string, string>, team: { id: string; members: Array<{ id: string }> }) {
  const memberIds = team.members.map((m) => m.id);
  for (let i = 0; i < LIMITS.team.requests / memberIds.length; i++) {
    const res = await call(requestsRoute.POST, { method: 'POST', headers: auth, body: { memberIds, text: `t${i}`, draftKey: `k${i}` }, params: { id: team.id } });
    expect(res.status).toBe(201);
  }
}

describe('POST /teams/:id/clone', () => {
  it('clones a full team: same roster, names, order, goal and budget; fresh conversations, no history, full capacity', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Research', 'Review', 'Writer']);
    await updateTeamSettings(alice.id, team.id, { name: 'Release', goal: 'Ship 2.0 研🚀', tokenBudget: 50_000 });
    const m0 = team.members[0]!;
    await publishState({ teamId: team.id, memberId: m0.id, conversationId: m0.conversationId!, jobId: null }, { requestId: 's', kind: 'plan', title: 'P', content: 'C' });
    await fill(alice.auth, { id: team.id, members: team.members.slice(0, 2) });
    const refused = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [m0.id], text: 'one more', draftKey: 'over' }, params: { id: team.id } });
    expect(refused.body).toMatchObject({ error: { code: 'team_capacity' } });

    const res = await call(cloneRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: 'c1' }, params: { id: team.id } });
    expect(res.status).toBe(201);
    const clone = res.body as { id: string; name: string; goal: string; status: string; tokenBudget: number; tokensUsed: number; pendingJobs: number; members: Array<{ id: string; name: string; agentId: string; agentName: string; conversationId: string }> };
    expect(clone).toMatchObject({ name: 'Release (2)', goal: 'Ship 2.0 研🚀', status: 'ready', tokenBudget: 50_000, tokensUsed: 0, pendingJobs: 0, requestCount: 0 });
    // The source reports the count its limit is checked against (the workspace offers the clone from it).
    expect((await getTeam(alice.id, team.id)).requestCount).toBe(LIMITS.team.requests);
    expect(clone.members.map((m) => [m.name, m.agentId, m.agentName])).toEqual(team.members.map((m) => [m.name, m.agentId, m.agentName]));
    expect(clone.members.map((m) => m.id)).not.toEqual(expect.arrayContaining(team.members.map((m) => m.id)));
    const sourceConversations = new Set(team.members.map((m) => m.conversationId));
    expect(clone.members.every((m) => m.conversationId && !sourceConversations.has(m.conversationId))).toBe(true);
    expect((await teamRow(clone.id)).clonedFromTeamId).toBe(team.id);
    // None of the source's history comes along.
    expect(await count('select count(*) as n from jobs where team_id = ?', clone.id)).toBe(0);
    expect(await count('select count(*) as n from state_entries where team_id = ?', clone.id)).toBe(0);
    expect(await count('select count(*) as n from shared_messages where team_id = ?', clone.id)).toBe(0);

    // Fresh capacity: the full 100 requests again, the 101st refused.
    await fill(alice.auth, { id: clone.id, members: clone.members.slice(0, 2) });
    const over = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [clone.members[2]!.id], text: 'x', draftKey: 'over' }, params: { id: clone.id } });
    expect(over.body).toMatchObject({ error: { code: 'team_capacity' } });
    expect((await getTeam(alice.id, clone.id)).requestCount).toBe(LIMITS.team.requests);
    // The source is as it was.
    expect(await count(`select count(*) as n from jobs where team_id = ? and kind = 'request'`, team.id)).toBe(LIMITS.team.requests);
    expect((await teamRow(team.id)).name).toBe('Release');
  });

  it('is idempotent by requestId; the id of another team is refused; a name can be given', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const post = (body: unknown, id = team.id) => call(cloneRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id } });
    const first = await post({ requestId: 'same', name: '  Second run 研🚀 ' });
    expect(first.status).toBe(201);
    expect(first.body.name).toBe('Second run 研🚀');
    const again = await post({ requestId: 'same', name: 'ignored on a repeat' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(await teamCount(alice.id)).toBe(2);
    // The key of the team created from agents (or of a clone of another team) is not this clone's.
    const sourceKey = (await teamRow(team.id)).requestId;
    expect((await post({ requestId: sourceKey })).body).toMatchObject({ error: { code: 'request_key_reused' } });
    const other = (await makeTeam(alice.id)).team;
    expect((await post({ requestId: 'same' }, other.id)).body).toMatchObject({ error: { code: 'request_key_reused' } });
    expect(await teamCount(alice.id)).toBe(3);
  });

  it('bounds the name like creation (80 / 160 bytes) and refuses unknown fields', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const post = (body: unknown) => call(cloneRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: rid(), ...(body as object) }, params: { id: team.id } });
    expect((await post({ name: '研'.repeat(53) })).status).toBe(201);
    expect((await post({ name: '研'.repeat(54) })).body).toMatchObject({ error: { fields: { name: expect.stringContaining('160 bytes') } } });
    expect((await post({ name: '🚀'.repeat(40) })).status).toBe(201);
    expect((await post({ name: 'a'.repeat(81) })).status).toBe(422);
    expect((await post({ goal: 'other' })).body).toMatchObject({ error: { fields: { goal: 'Unknown field' } } });
    expect(await teamCount(alice.id)).toBe(3);
  });

  it('counts against the 20-team limit: the clone that would be the 21st is refused and writes nothing', async () => {
    const alice = await makeUser('alice');
    const ids = (await makeAgents(alice.id, ['X', 'Y'])).map((a) => a.id);
    const { team } = await createTeam(alice.id, { requestId: rid(), name: 'Src', goal: 'G', agentIds: ids });
    for (let i = 1; i < LIMITS.team.perOwner - 1; i++) await createTeam(alice.id, { requestId: rid(), name: `T${i}`, goal: 'G', agentIds: ids });
    const post = () => call(cloneRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: rid() }, params: { id: team.id } });
    expect((await post()).status).toBe(201);
    const conversations = await count('select count(*) as n from conversations where owner_id = ?', alice.id);
    expect((await post()).body).toMatchObject({ error: { code: 'team_limit' } });
    expect(await teamCount(alice.id)).toBe(LIMITS.team.perOwner);
    expect(await count('select count(*) as n from conversations where owner_id = ?', alice.id)).toBe(conversations);
  });

  it('a flood of clones: the same request id makes one team, distinct ids stop at the 20-team limit', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const post = (requestId: string) => call(cloneRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId }, params: { id: team.id } });
    const same = await Promise.all(Array.from({ length: 10 }, () => post('one')));
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    const flood = await Promise.all(Array.from({ length: 25 }, () => post(rid())));
    // What must not happen: a 21st team, or a refused clone leaving members or conversations behind.
    expect(flood.filter((r) => r.status === 201)).toHaveLength(LIMITS.team.perOwner - 2);
    const refused = flood.filter((r) => r.status === 409);
    expect(refused).toHaveLength(25 - (LIMITS.team.perOwner - 2));
    expect(refused.every((r) => (r.body.error as { code: string }).code === 'team_limit')).toBe(true);
    expect(await teamCount(alice.id)).toBe(LIMITS.team.perOwner);
    expect(await count('select count(*) as n from team_members m join teams t on t.id = m.team_id where t.owner_id = ?', alice.id)).toBe(LIMITS.team.perOwner * 2);
    expect(await count('select count(*) as n from conversations where owner_id = ?', alice.id)).toBe(LIMITS.team.perOwner * 2);
  });

  it("another owner can't clone the team (404 like a missing one) and nothing is written", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const foreign = await call(cloneRoute.POST, { method: 'POST', headers: bob.auth, body: { requestId: 'x' }, params: { id: team.id } });
    expect(foreign.status).toBe(404);
    const missing = await call(cloneRoute.POST, { method: 'POST', headers: bob.auth, body: { requestId: 'y' }, params: { id: 'no-such-team' } });
    expect(missing.body).toEqual(foreign.body);
    expect(await teamCount(bob.id)).toBe(0);
    expect(await teamCount(alice.id)).toBe(1);
    // Even with the source's own request id, bob learns nothing: still 404.
    const sourceKey = (await teamRow(team.id)).requestId;
    expect((await call(cloneRoute.POST, { method: 'POST', headers: bob.auth, body: { requestId: sourceKey }, params: { id: team.id } })).status).toBe(404);
  });
});

describe('cloneName', () => {
  it('numbers the copy and counts on', () => {
    expect(cloneName('Release')).toBe('Release (2)');
    expect(cloneName('Release (2)')).toBe('Release (3)');
    expect(cloneName('Release (9)')).toBe('Release (10)');
    expect(cloneName('(2)')).toBe('(2) (2)');
    expect(cloneName('研究')).toBe('研究 (2)');
  });

  it('cuts the base so the name fits 80 characters / 160 bytes, never inside an emoji', () => {
    for (const name of ['a'.repeat(80), '研'.repeat(53), '🚀'.repeat(40), `${'a'.repeat(76)} (9)`]) {
      const out = cloneName(name);
      expect(measureText(out, LIMITS.team.name).over, out).toBe(false);
      expect(out.isWellFormed()).toBe(true);
    }
    expect(cloneName('a'.repeat(80))).toBe(`${'a'.repeat(76)} (2)`);
    expect(cloneName('🚀'.repeat(40))).toBe(`${'🚀'.repeat(39)} (2)`) // 156 + 4 bytes;
    expect(cloneName(`${'a'.repeat(76)} (9)`)).toBe(`${'a'.repeat(75)} (10)`);
  });
});
