import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import * as agentsRoute from '@/app/api/v1/agents/route';
import * as agentRoute from '@/app/api/v1/agents/[id]/route';
import * as conversationsRoute from '@/app/api/v1/conversations/route';
import * as teamsRoute from '@/app/api/v1/teams/route';
import { LIMITS } from '@/lib/limits';
import { overrideQuotasForTests } from '@/server/agents/quotas';
import { getDb, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { makeUser } from '../support/users';
import { call, makeAgents } from '../support/teams';

/** Per-account quotas: agents and conversations, with small limits set through the test override. */

const count = async (table: 'agents' | 'conversations' | 'teams', ownerId: string) =>
  (await statement(`select count(*) as n from ${table} where owner_id = ?`).get<{ n: number }>(ownerId))!.n;
const createAgent = (auth: Record<string, string>, name = `Agent ${crypto.randomUUID().slice(0, 8)}`) =>
  call(agentsRoute.POST, { method: 'POST', headers: auth, body: { name } });
const createConversation = (auth: Record<string, string>, agentId: string) =>
  call(conversationsRoute.POST, { method: 'POST', headers: auth, body: { agentId } });
const createTeam = (auth: Record<string, string>, agentIds: string[]) =>
  call(teamsRoute.POST, { method: 'POST', headers: auth, body: { requestId: crypto.randomUUID(), name: `Team ${crypto.randomUUID().slice(0, 6)}`, goal: 'g', agentIds } });

afterEach(async () => overrideQuotasForTests());

describe('quota defaults', () => {
  it('are 200 agents and 5,000 conversations per account', async () => {
    expect(LIMITS.quotas).toEqual({ agentsPerAccount: 200, conversationsPerAccount: 5_000 });
  });

  it('are read once from AGENT_LIMIT_PER_ACCOUNT and CONVERSATION_LIMIT_PER_ACCOUNT; nonsense keeps the default', async () => {
    vi.resetModules();
    vi.stubEnv('AGENT_LIMIT_PER_ACCOUNT', '7');
    vi.stubEnv('CONVERSATION_LIMIT_PER_ACCOUNT', '-3');
    try {
      const { LIMITS: fresh } = await import('@/lib/limits');
      expect(fresh.quotas).toEqual({ agentsPerAccount: 7, conversationsPerAccount: 5_000 });
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});

describe('agents per account', () => {
  beforeEach(async () => overrideQuotasForTests({ agentsPerAccount: 3 }));

  it('allows the limit, refuses one past it with 409 agent_limit, and counts only the owner’s agents', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    // Bob's agents must not use up alice's quota.
    for (let i = 0; i < 3; i++) expect((await createAgent(bob.auth)).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await createAgent(alice.auth)).status).toBe(201);
    expect(await count('agents', alice.id)).toBe(3);

    const past = await createAgent(alice.auth);
    expect(past.status).toBe(409);
    expect(past.body).toMatchObject({ error: { code: 'agent_limit' } });
    expect(await count('agents', alice.id)).toBe(3);

    // Deleting one frees its slot.
    const [first] = await getDb().select().from(schema.agents).where(eq(schema.agents.ownerId, alice.id));
    expect((await call(agentRoute.DELETE, { method: 'DELETE', headers: alice.auth, params: { id: first!.id } })).status).toBe(204);
    expect((await createAgent(alice.auth)).status).toBe(201);
  });

  it('lets only one of two creates racing through the HTTP layer take the last slot', async () => {
    const alice = await makeUser('alice');
    for (let i = 0; i < 2; i++) expect((await createAgent(alice.auth)).status).toBe(201);
    const both = await Promise.all([createAgent(alice.auth), createAgent(alice.auth)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await count('agents', alice.id)).toBe(3);
  });
});

describe('conversations per account', () => {
  beforeEach(async () => overrideQuotasForTests({ conversationsPerAccount: 4 }));

  it('allows the limit, refuses one past it with 409 conversation_limit, and counts only the owner’s conversations', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const [bobsAgent] = await makeAgents(bob.id, ['Bobs']);
    for (let i = 0; i < 4; i++) expect((await createConversation(bob.auth, bobsAgent!.id)).status).toBe(201);
    const [agent] = await makeAgents(alice.id, ['Solo']);
    for (let i = 0; i < 4; i++) expect((await createConversation(alice.auth, agent!.id)).status).toBe(201);

    const past = await createConversation(alice.auth, agent!.id);
    expect(past.status).toBe(409);
    expect(past.body).toMatchObject({ error: { code: 'conversation_limit' } });
    expect(await count('conversations', alice.id)).toBe(4);
    // Another owner's agent is still a 404, not a quota answer.
    expect((await createConversation(alice.auth, bobsAgent!.id)).status).toBe(404);
  });

  it('counts a team’s member conversations: a team that would pass the limit is refused before anything is written', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['A', 'B', 'C']);
    expect((await createConversation(alice.auth, agents[0]!.id)).status).toBe(201);
    expect((await createConversation(alice.auth, agents[0]!.id)).status).toBe(201);
    // 2 + 2 members = 4: exactly at the limit.
    const fits = await createTeam(alice.auth, [agents[0]!.id, agents[1]!.id]);
    expect(fits.status).toBe(201);
    expect(await count('conversations', alice.id)).toBe(4);

    expect((await createConversation(alice.auth, agents[2]!.id)).status).toBe(409);
    const teamsBefore = await count('teams', alice.id);
    const tooBig = await createTeam(alice.auth, [agents[1]!.id, agents[2]!.id]);
    expect(tooBig.status).toBe(409);
    expect(tooBig.body).toMatchObject({ error: { code: 'conversation_limit' } });
    // Must not happen: a team row or any member conversation left behind by the refused creation.
    expect(await count('teams', alice.id)).toBe(teamsBefore);
    expect(await count('conversations', alice.id)).toBe(4);
  });

  it('holds the slots of a team creation a crash left unfinished', async () => {
    const alice = await makeUser('alice');
    const agents = await makeAgents(alice.id, ['A', 'B']);
    // Team row and roster committed, member conversations not yet (they will be created at start-up).
    const teamId = crypto.randomUUID();
    await writeTx(async (tx) => {
      await tx.insert(schema.teams).values({ id: teamId, ownerId: alice.id, requestId: 'r', name: 'Half', goal: 'g', status: 'creating', updatedAt: new Date() });
      await tx
        .insert(schema.teamMembers)
        .values(agents.map((a, i) => ({ id: crypto.randomUUID(), teamId, agentId: a.id, agentName: a.name, name: a.name, position: i })));
    });
    expect((await createConversation(alice.auth, agents[0]!.id)).status).toBe(201);
    expect((await createConversation(alice.auth, agents[0]!.id)).status).toBe(201);
    const past = await createConversation(alice.auth, agents[0]!.id);
    expect(past.status).toBe(409);
    expect(await count('conversations', alice.id)).toBe(2);
  });
});
