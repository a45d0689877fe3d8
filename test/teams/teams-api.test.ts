import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as teamsRoute from '@/app/api/v1/teams/route';
import * as teamRoute from '@/app/api/v1/teams/[id]/route';
import * as requestsRoute from '@/app/api/v1/teams/[id]/requests/route';
import * as activityRoute from '@/app/api/v1/teams/[id]/activity/route';
import * as cancelRoute from '@/app/api/v1/teams/[id]/jobs/[jobId]/cancel/route';
import { makeUser } from '../support/users';
import { call, makeAgents, makeTeam } from '../support/teams';

const rid = () => crypto.randomUUID();

describe('team creation API', () => {
  it('creates a ready team with one conversation per member, idempotent by request id', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['Writer', 'writer-2', 'Critic']);
    const body = { requestId: rid(), name: 'Launch', goal: 'Write the launch post', agentIds: agents.map((a) => a.id) };
    const first = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body });
    expect(first.status).toBe(201);
    expect(first.body.status).toBe('ready');
    const members = first.body.members as Array<{ name: string; conversationId: string; agentId: string }>;
    expect(members.map((m) => m.agentId)).toEqual(agents.map((a) => a.id));
    expect(new Set(members.map((m) => m.conversationId)).size).toBe(3);
    const again = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const list = await call(teamsRoute.GET, { headers: alice.auth });
    expect((list.body.teams as unknown[]).length).toBe(1);
  });

  it('derives unique member names from duplicate agent names', async () => {
    const alice = await makeUser('alice');
    // Agent names are unique, but CJK names longer than 160 bytes cut to the same member name.
    const [a, b] = await makeAgents(alice.id, ['研'.repeat(60) + 'A', '研'.repeat(60) + 'B']);
    const res = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: rid(), name: 'T', goal: 'G', agentIds: [a!.id, b!.id] } });
    expect((res.body.members as Array<{ name: string }>).map((m) => m.name)).toEqual(['研'.repeat(53), '研'.repeat(52) + ' (2)']);
  });

  it('refuses 1 or 9 agents, duplicates, unknown fields, and another owner’s agents', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const mine = await makeAgents(alice.id, ['A1', 'A2', 'A3', 'A4', 'A5', 'A6', 'A7', 'A8', 'A9']);
    const [bobs] = await makeAgents(bob.id, ['B1']);
    const post = (body: object) => call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: rid(), name: 'T', goal: 'G', ...body } });
    expect((await post({ agentIds: [mine[0]!.id] })).body).toMatchObject({ error: { code: 'validation_error', fields: { agentIds: expect.any(String) } } });
    expect((await post({ agentIds: mine.map((a) => a.id) })).status).toBe(422);
    expect((await post({ agentIds: mine.slice(0, 8).map((a) => a.id) })).status).toBe(201);
    expect((await post({ agentIds: [mine[0]!.id, mine[0]!.id] })).status).toBe(422);
    const foreign = await post({ agentIds: [mine[0]!.id, bobs!.id] });
    expect(foreign.status).toBe(422);
    expect(foreign.body).toMatchObject({ error: { fields: { agentIds: expect.stringContaining('Unknown agent') } } });
    expect((await post({ agentIds: [mine[0]!.id, mine[1]!.id], extra: 1 })).body).toMatchObject({ error: { fields: { extra: 'Unknown field' } } });
  });

  it('bounds name (80 chars / 160 bytes) and goal (2,000 / 4,000) in ASCII, CJK and emoji', async () => {
    const alice = await makeUser('alice');
    const ids = (await makeAgents(alice.id, ['X', 'Y'])).map((a) => a.id);
    const post = (name: string, goal = 'g') => call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: rid(), name, goal, agentIds: ids } });
    expect((await post('a'.repeat(80))).status).toBe(201);
    expect((await post('a'.repeat(81))).body).toMatchObject({ error: { fields: { name: expect.stringContaining('80 characters') } } });
    expect((await post('é'.repeat(80))).status).toBe(201);
    expect((await post('研'.repeat(53))).status).toBe(201);
    expect((await post('研'.repeat(54))).body).toMatchObject({ error: { fields: { name: expect.stringContaining('160 bytes') } } });
    expect((await post('🤖'.repeat(40))).status).toBe(201);
    expect((await post('🤖'.repeat(41))).status).toBe(422);
    // Names are unique per owner (team-names.test.ts): each team made here has its own.
    expect((await post('ok 1', 'g'.repeat(2000))).status).toBe(201);
    expect((await post('ok 2', 'g'.repeat(2001))).status).toBe(422);
    expect((await post('ok 2', '🤖'.repeat(1000))).status).toBe(201);
    expect((await post('ok 3', '🤖'.repeat(1001))).status).toBe(422);
    expect((await post('ok 3', '\ud800x')).status).toBe(422);
  });

  it('allows 20 teams per owner and refuses the 21st', async () => {
    const alice = await makeUser('alice');
    const ids = (await makeAgents(alice.id, ['X', 'Y'])).map((a) => a.id);
    for (let i = 0; i < 20; i++) {
      const res = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: `r${i}`, name: `T${i}`, goal: 'G', agentIds: ids } });
      expect(res.status).toBe(201);
    }
    const over = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: 'r20', name: 'T20', goal: 'G', agentIds: ids } });
    expect(over.status).toBe(409);
    expect(over.body).toEqual({ error: { code: 'team_limit', message: 'Team limit reached (20)' } });
    const retry = await call(teamsRoute.POST, { method: 'POST', headers: alice.auth, body: { requestId: 'r3', name: 'T3', goal: 'G', agentIds: ids } });
    expect(retry.status).toBe(200);
  });
});

describe('requests, activity and cancel API', () => {
  it('queues one job per recipient; a repeated draft key returns the same jobs', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const memberIds = team.members.map((m) => m.id);
    const body = { memberIds, text: 'Summarise the plan', draftKey: 'draft-1' };
    const sent = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id: team.id } });
    expect(sent.status).toBe(201);
    const jobs = sent.body.jobs as Array<{ id: string; memberId: string; status: string }>;
    expect(jobs.map((j) => j.memberId)).toEqual(memberIds);
    expect(jobs.every((j) => j.status === 'queued')).toBe(true);
    const again = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body, params: { id: team.id } });
    expect(again.status).toBe(200);
    expect((again.body.jobs as Array<{ id: string }>).map((j) => j.id)).toEqual(jobs.map((j) => j.id));
    const changed = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { ...body, text: 'other' }, params: { id: team.id } });
    expect(changed.status).toBe(409);

    const act = await call(activityRoute.GET, { url: `http://localhost/x?details=1&limit=200`, headers: alice.auth, params: { id: team.id } });
    expect(act.body.totalJobs).toBe(2);
    const feed = act.body.jobs as Array<Record<string, unknown>>;
    expect(feed[0]).toMatchObject({ kind: 'request', status: 'queued', text: 'Summarise the plan', sourceMemberId: null, parentId: null });
    expect(feed[0]).not.toHaveProperty('frozenInput');
    expect(feed[0]).not.toHaveProperty('requestKey');
    const compact = await call(activityRoute.GET, { url: `http://localhost/x`, headers: alice.auth, params: { id: team.id } });
    expect((compact.body.jobs as Array<Record<string, unknown>>)[0]).not.toHaveProperty('text');
    const unchanged = await call(activityRoute.GET, { url: `http://localhost/x?revision=${act.body.revision}&details=1`, headers: alice.auth, params: { id: team.id } });
    expect(unchanged.body).toEqual({ revision: act.body.revision, unchanged: true });
    expect(Buffer.byteLength(unchanged.raw)).toBeLessThanOrEqual(200);
  });

  it('bounds task text at 4,000 characters and 8,000 bytes in ASCII, CJK and emoji', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const memberIds = [team.members[0]!.id];
    const send = (text: string) => call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds, text, draftKey: rid() }, params: { id: team.id } });
    expect((await send('a'.repeat(4000))).status).toBe(201);
    expect((await send('a'.repeat(4001))).body).toMatchObject({ error: { fields: { text: expect.stringContaining('4,000 characters') } } });
    expect((await send('é'.repeat(4000))).status).toBe(201);
    expect((await send('研'.repeat(2666))).status).toBe(201);
    expect((await send('研'.repeat(2667))).body).toMatchObject({ error: { fields: { text: expect.stringContaining('8,000 bytes') } } });
    expect((await send('🤖'.repeat(2000))).status).toBe(201);
    expect((await send('🤖'.repeat(2001))).status).toBe(422);
    expect((await send('   ')).status).toBe(422);
  });

  it('refuses the 101st request of a team', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const memberIds = team.members.map((m) => m.id);
    for (let i = 0; i < 50; i++) {
      const res = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds, text: `t${i}`, draftKey: `k${i}` }, params: { id: team.id } });
      expect(res.status).toBe(201);
    }
    const over = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [memberIds[0]], text: 'one more', draftKey: 'k-over' }, params: { id: team.id } });
    expect(over.status).toBe(409);
    expect(over.body).toMatchObject({ error: { code: 'team_capacity', message: 'Team limit reached: this team has taken its 100 requests; clone it (Manage → Clone team) to keep working with the same members and goal' } });
  });

  it('cancels a queued job at once and leaves finished jobs unchanged', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const sent = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'k' }, params: { id: team.id } });
    const jobId = (sent.body.jobs as Array<{ id: string }>)[0]!.id;
    const cancelled = await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: team.id, jobId } });
    expect(cancelled.body).toMatchObject({ job: { id: jobId, status: 'cancelled' } });
    const again = await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: team.id, jobId } });
    expect(again.body).toMatchObject({ job: { status: 'cancelled' } });
    const got = await call(teamRoute.GET, { headers: alice.auth, params: { id: team.id } });
    expect(got.body.pendingJobs).toBe(0);
  });

  it('answers 401 without credentials and 404 for another owner’s team on every route', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const sent = await call(requestsRoute.POST, { method: 'POST', headers: alice.auth, body: { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'k' }, params: { id: team.id } });
    const jobId = (sent.body.jobs as Array<{ id: string }>)[0]!.id;
    expect((await call(teamsRoute.GET)).status).toBe(401);
    expect((await call(teamRoute.GET, { params: { id: team.id } })).status).toBe(401);
    const asBob = [
      await call(teamRoute.GET, { headers: bob.auth, params: { id: team.id } }),
      await call(requestsRoute.POST, { method: 'POST', headers: bob.auth, body: { memberIds: [team.members[0]!.id], text: 'x', draftKey: 'k2' }, params: { id: team.id } }),
      await call(activityRoute.GET, { headers: bob.auth, params: { id: team.id } }),
      await call(cancelRoute.POST, { method: 'POST', headers: bob.auth, params: { id: team.id, jobId } }),
    ];
    expect(asBob.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    expect(((await call(teamsRoute.GET, { headers: bob.auth })).body.teams as unknown[]).length).toBe(0);
    const still = await call(activityRoute.GET, { url: 'http://localhost/x?details=1', headers: alice.auth, params: { id: team.id } });
    expect(still.body.totalJobs).toBe(1);
    expect((still.body.jobs as Array<{ status: string }>)[0]!.status).toBe('queued');
  });

  it('rejects bad activity query parameters with a 422 naming the field', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    // The API's own wording, as every other field error has it (zod's read "Too small: expected number to be >=1").
    const wording: Record<string, string> = {
      'limit=0': 'Must be at least 1',
      'limit=201': 'Must be at most 200',
      // Too large for a double, or for any number type: still a whole number, and still too large.
      [`limit=${'9'.repeat(20)}`]: 'Must be at most 200',
      [`offset=${'1'.repeat(400)}`]: 'Must be at most 1000000',
      'offset=1000001': 'Must be at most 1000000',
      'limit=1.5': 'Must be a whole number',
      'limit=一': 'Must be a whole number',
      'limit=🎉': 'Must be a whole number',
      'offset=-1': 'Must be a whole number',
      'limit=abc': 'Must be a whole number',
      'bogus=1': 'Unknown field',
      'status=bogus': 'Must be one of: needs_input, in_progress, completed, failed, cancelled',
      'details=yes': 'Must be one of: 0, 1, true, false',
    };
    for (const [q, message] of Object.entries(wording)) {
      const res = await call(activityRoute.GET, { url: `http://localhost/x?${encodeURI(q)}`, headers: alice.auth, params: { id: team.id } });
      expect(res.status, q).toBe(422);
      expect((res.body.error as { fields: Record<string, string> }).fields, q).toEqual({ [q.split('=')[0]!]: message });
    }
    expect((await call(activityRoute.GET, { url: 'http://localhost/x?limit=200&offset=0', headers: alice.auth, params: { id: team.id } })).status).toBe(200);
    expect((await call(activityRoute.GET, { url: 'http://localhost/x?limit=1&offset=1000000', headers: alice.auth, params: { id: team.id } })).status).toBe(200);
  });
});

describe('agents bound to teams', () => {
  it('cannot be deleted while a team uses them; can after the team is deleted', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id);
    const { deleteAgent } = await import('@/server/agents/catalog');
    const { deleteTeam } = await import('@/server/teams/lifecycle');
    await expect(deleteAgent(alice.id, agents[0]!.id)).rejects.toThrow(`This agent is a member of "${team.name}"; delete that team first`);
    await deleteTeam(alice.id, team.id);
    await expect(deleteAgent(alice.id, agents[0]!.id)).resolves.toBeUndefined();
  });
});
