import '../auth/support/next-auth';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { GET as agentUsage } from '@/app/api/v1/mcp/servers/[id]/agents/route';
import { GET as adminAgentUsage } from '@/app/api/v1/admin/mcp/servers/[id]/agents/route';
import { DELETE as adminDelete } from '@/app/api/v1/admin/mcp/servers/[id]/route';
import { POST as adminCreate } from '@/app/api/v1/admin/mcp/servers/route';
import { DELETE as deleteOne } from '@/app/api/v1/mcp/servers/[id]/route';
import { POST as createOwn } from '@/app/api/v1/mcp/servers/route';
import { POST as createAgentRoute } from '@/app/api/v1/agents/route';
import { GET as getAgentRoute, PATCH as patchAgentRoute } from '@/app/api/v1/agents/[id]/route';
import { mcpServerRule } from '@/lib/mcp/approval-rule';
import { mcpToolName } from '@/lib/mcp/tool-name';
import { getDb, schema, writeTx } from '@/server/db';
import { removeMcpServerFromAgents } from '@/server/mcp/agent-usage';
import { stopAllMcpConnections } from '@/server/mcp/connections';
import { makeAccount } from '../admin/helpers';
import { call } from '../support/teams';

// Deleting an MCP server takes it out of the agents that use it, in the deleting transaction (ADR 055): their
// selection entry and their approval rules for it, so an agent never names a server that no longer exists and a
// GET-then-PATCH of it is accepted. What must not happen: another owner's agent changed, counted or named by a
// delete or by the "which agents use it" read.

type Account = Awaited<ReturnType<typeof makeAccount>>;
type AgentBody = { id: string; name: string; mcpTools: Array<{ serverId: string; tools: 'all' | string[] }>; approvalTools: string[]; updatedAt: string };

beforeEach(async () => {
  await stopAllMcpConnections();
  await writeTx(async (tx) => {
    await tx.delete(schema.agents);
    await tx.delete(schema.mcpServers);
  });
});
afterAll(() => stopAllMcpConnections());

async function ownServer(who: Account, name: string): Promise<string> {
  const res = await call(createOwn, { method: 'POST', headers: who.auth, body: { transport: 'http', name, url: 'https://mcp.example.test/mcp' } });
  expect(res.status, res.raw).toBe(201);
  return (res.body as { id: string }).id;
}

async function deploymentServer(admin: Account, name: string): Promise<string> {
  const res = await call(adminCreate, { method: 'POST', headers: admin.auth, body: { transport: 'http', name, url: 'https://mcp.example.test/shared' } });
  expect(res.status, res.raw).toBe(201);
  return (res.body as { id: string }).id;
}

async function agent(who: Account, body: Record<string, unknown>): Promise<AgentBody> {
  const res = await call(createAgentRoute, { method: 'POST', headers: who.auth, body });
  expect(res.status, res.raw).toBe(201);
  return res.body as unknown as AgentBody;
}

async function stored(id: string) {
  const [row] = await getDb().select().from(schema.agents).where(eq(schema.agents.id, id));
  return row!;
}

/** GET the agent, then PATCH back exactly what the API answered (less what PATCH does not take). */
async function roundTrip(who: Account, id: string) {
  const got = await call(getAgentRoute, { headers: who.auth, params: { id } });
  expect(got.status, got.raw).toBe(200);
  const { id: _id, createdAt: _c, updatedAt: _u, ...fields } = got.body;
  return call(patchAgentRoute, { method: 'PATCH', headers: who.auth, params: { id }, body: fields });
}

describe('deleting an MCP server', () => {
  it("names the owner's agents that use it before, takes it and its approval rules out of them, and a round trip of each agent is accepted", async () => {
    const ann = await makeAccount('ann', 'member');
    const gone = await ownServer(ann, 'search');
    const kept = await ownServer(ann, 'files');
    const writer = await agent(ann, {
      name: 'Writer',
      toolGroups: ['utility'],
      mcpTools: [
        { serverId: gone, tools: ['find'] },
        { serverId: kept, tools: 'all' },
      ],
      approvalTools: ['calculator', mcpToolName(gone, 'find'), mcpServerRule(gone), mcpToolName(kept, 'read')],
    });
    const analyst = await agent(ann, { name: 'Analyst', mcpTools: [{ serverId: gone, tools: 'all' }] });
    const bystander = await agent(ann, { name: 'Bystander', mcpTools: [{ serverId: kept, tools: 'all' }] });

    const usage = await call(agentUsage, { headers: ann.auth, params: { id: gone } });
    expect(usage.status, usage.raw).toBe(200);
    expect(usage.body).toEqual({
      agents: [
        { id: analyst.id, name: 'Analyst' },
        { id: writer.id, name: 'Writer' },
      ],
      count: 2,
    });

    const res = await call(deleteOne, { method: 'DELETE', headers: ann.auth, params: { id: gone } });
    expect(res.status, res.raw).toBe(204);

    const w = await stored(writer.id);
    expect(w.mcpTools).toEqual([{ serverId: kept, tools: 'all' }]);
    expect(w.approvalTools).toEqual(['calculator', mcpToolName(kept, 'read')]);
    expect((await stored(analyst.id)).mcpTools).toEqual([]);
    const b = await stored(bystander.id);
    expect(b.mcpTools).toEqual([{ serverId: kept, tools: 'all' }]);
    expect(b.updatedAt.toISOString()).toBe(bystander.updatedAt);

    for (const id of [writer.id, analyst.id, bystander.id]) {
      const patched = await roundTrip(ann, id);
      expect(patched.status, patched.raw).toBe(200);
    }
  });

  it('taking a server out of agents twice (a retried transaction body) leaves what once did', async () => {
    const ann = await makeAccount('ann', 'member');
    const gone = await ownServer(ann, 'search');
    const a = await agent(ann, { name: 'Writer', mcpTools: [{ serverId: gone, tools: 'all' }], approvalTools: [mcpServerRule(gone)] });
    const server = { id: gone, ownerId: ann.id };
    const changed = await writeTx(async (tx) => [await removeMcpServerFromAgents(tx, server), await removeMcpServerFromAgents(tx, server)]);
    expect(changed).toEqual([1, 0]);
    const row = await stored(a.id);
    expect({ mcpTools: row.mcpTools, approvalTools: row.approvalTools }).toEqual({ mcpTools: [], approvalTools: [] });
  });

  it("never changes, counts or names another owner's agent, and another owner's id answers 404 and changes nothing", async () => {
    const ann = await makeAccount('ann', 'member');
    const bob = await makeAccount('bob', 'member');
    const anns = await ownServer(ann, 'search');
    await agent(ann, { name: 'Writer', mcpTools: [{ serverId: anns, tools: 'all' }] });
    // Bob's agent naming Ann's server can't be made through the catalog (422); written directly, as old or
    // tampered data would be, it must still be out of reach of Ann's delete.
    const bobs = await agent(bob, { name: 'Secret project' });
    await writeTx((tx) => tx.update(schema.agents).set({ mcpTools: [{ serverId: anns, tools: 'all' }] }).where(eq(schema.agents.id, bobs.id)));
    const bobsBefore = await stored(bobs.id);

    // Bob, with Ann's server id: not his, so 404 for the read and the delete, and nothing changes.
    for (const res of [
      await call(agentUsage, { headers: bob.auth, params: { id: anns } }),
      await call(deleteOne, { method: 'DELETE', headers: bob.auth, params: { id: anns } }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.raw).not.toContain('Writer');
    }
    expect(await getDb().select().from(schema.mcpServers).where(eq(schema.mcpServers.id, anns))).toHaveLength(1);

    // Ann's read counts and names only her own agents; her delete changes only them.
    const usage = await call(agentUsage, { headers: ann.auth, params: { id: anns } });
    expect(usage.body).toEqual({ agents: [{ id: expect.any(String), name: 'Writer' }], count: 1 });
    expect(usage.raw).not.toContain('Secret project');
    expect((await call(deleteOne, { method: 'DELETE', headers: ann.auth, params: { id: anns } })).status).toBe(204);
    expect(await stored(bobs.id)).toEqual(bobsBefore);
  });

  it("a deployment-wide server leaves every account's agents; the admin sees others' agents counted, never named", async () => {
    const admin = await makeAccount('root', 'admin');
    const ann = await makeAccount('ann', 'member');
    const shared = await deploymentServer(admin, 'shared');
    const own = await agent(admin, { name: 'Ops', mcpTools: [{ serverId: shared, tools: 'all' }] });
    const anns = await agent(ann, { name: 'Private diary', mcpTools: [{ serverId: shared, tools: ['read'] }], approvalTools: [mcpToolName(shared, 'read')] });

    const usage = await call(adminAgentUsage, { headers: admin.auth, params: { id: shared } });
    expect(usage.status, usage.raw).toBe(200);
    expect(usage.body).toEqual({ agents: [{ id: own.id, name: 'Ops' }], count: 2 });
    expect(usage.raw).not.toContain('Private diary');
    // A member can't read a deployment-wide server's usage through either door.
    expect((await call(adminAgentUsage, { headers: ann.auth, params: { id: shared } })).status).toBe(404);
    expect((await call(agentUsage, { headers: ann.auth, params: { id: shared } })).status).toBe(404);

    expect((await call(adminDelete, { method: 'DELETE', headers: admin.auth, params: { id: shared } })).status).toBe(204);
    for (const id of [own.id, anns.id]) {
      const row = await stored(id);
      expect({ mcpTools: row.mcpTools, approvalTools: row.approvalTools }).toEqual({ mcpTools: [], approvalTools: [] });
    }
    expect((await roundTrip(ann, anns.id)).status).toBe(200);
  });
});

describe("an agent's MCP selection over the API", () => {
  it('a server unknown to the caller is refused at mcpTools, naming the server, and changes nothing', async () => {
    const ann = await makeAccount('ann', 'member');
    const bob = await makeAccount('bob', 'member');
    const bobs = await ownServer(bob, 'search');
    const a = await agent(ann, { name: 'Writer' });
    for (const serverId of [bobs, '00000000-0000-4000-8000-000000000000']) {
      const res = await call(patchAgentRoute, { method: 'PATCH', headers: ann.auth, params: { id: a.id }, body: { mcpTools: [{ serverId, tools: 'all' }] } });
      expect(res.status, res.raw).toBe(422);
      expect(res.body).toMatchObject({ error: { code: 'validation_error', fields: { mcpTools: `Not an MCP server you can use: ${serverId}` } } });
      expect(JSON.stringify(res.body)).toContain(`mcpTools: Not an MCP server you can use: ${serverId}`);
    }
    expect((await stored(a.id)).mcpTools).toEqual([]);
  });

  it('an agent still naming a server deleted before deletes took it out answers a round trip with 200, without the server and its rules', async () => {
    const ann = await makeAccount('ann', 'member');
    const kept = await ownServer(ann, 'files');
    const a = await agent(ann, { name: 'Writer', mcpTools: [{ serverId: kept, tools: 'all' }] });
    const deletedLongAgo = '11111111-1111-4111-8111-111111111111';
    await writeTx((tx) =>
      tx
        .update(schema.agents)
        .set({
          mcpTools: [{ serverId: deletedLongAgo, tools: 'all' }, { serverId: kept, tools: 'all' }],
          approvalTools: [mcpServerRule(deletedLongAgo), mcpToolName(deletedLongAgo, 'x'), mcpToolName(kept, 'read')],
        })
        .where(eq(schema.agents.id, a.id)),
    );
    const res = await roundTrip(ann, a.id);
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toMatchObject({ mcpTools: [{ serverId: kept, tools: 'all' }], approvalTools: [mcpToolName(kept, 'read')] });
    // Sending the stale entry again is a server the caller can't use, now refused at its field.
    const again = await call(patchAgentRoute, { method: 'PATCH', headers: ann.auth, params: { id: a.id }, body: { mcpTools: [{ serverId: deletedLongAgo, tools: 'all' }] } });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({ error: { fields: { mcpTools: `Not an MCP server you can use: ${deletedLongAgo}` } } });
  });
});
