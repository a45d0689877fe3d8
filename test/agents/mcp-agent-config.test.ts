import { afterEach, describe, expect, it, vi } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { mcpToolName } from '@/lib/mcp/tool-name';
import { agentCreateSchema, agentPatchSchema } from '@/lib/schemas/agent';
import { createAgent, getAgent, listAgents, toApiAgent, updateAgent } from '@/server/agents/catalog';
import { AppError } from '@/server/http/errors';
import { makeUser } from '../support/users';
import * as fake from './mcp-fake';

// The MCP client's facade is replaced by an in-memory one (mcp-fake.ts): which servers an owner may use.
vi.mock('@/server/mcp/index', () => import('./mcp-fake'));
afterEach(() => fake.resetFake());

const M = LIMITS.agent.mcp;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const fieldsOf = (input: unknown, schema: typeof agentCreateSchema | typeof agentPatchSchema = agentCreateSchema) => {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'));
};

describe("an agent's MCP selection", () => {
  it('takes a whole server or single tools of servers the owner may use, and approval rules by model-facing name', async () => {
    const alice = await makeUser('alice');
    const shared = fake.addServer(null, 'Shared', [fake.fakeTool('search')]);
    const own = fake.addServer(alice.id, 'Mine', [fake.fakeTool('read'), fake.fakeTool('write')]);
    const agent = await createAgent(alice.id, {
      name: 'Worker',
      mcpTools: [
        { serverId: shared.id, tools: 'all' },
        { serverId: own.id, tools: ['write'] },
      ],
      approvalTools: ['calculator', mcpToolName(own.id, 'write')],
    });
    expect(toApiAgent(await getAgent(alice.id, agent.id))).toMatchObject({
      mcpTools: [
        { serverId: shared.id, tools: 'all' },
        { serverId: own.id, tools: ['write'] },
      ],
      approvalTools: ['calculator', mcpToolName(own.id, 'write')],
    });
  });

  it("refuses another account's server at its field, on create and on update, and changes nothing", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const bobs = fake.addServer(bob.id, 'Bobs', [fake.fakeTool('read')]);
    const created = await refusal(createAgent(alice.id, { name: 'Thief', mcpTools: [{ serverId: bobs.id, tools: 'all' }] }));
    expect(created.status).toBe(422);
    expect(created.fields).toEqual({ mcpTools: `Not an MCP server you can use: ${bobs.id}` });
    // What must not happen: the agent written anyway, or the answer telling a foreign server from a missing one.
    expect(await listAgents(alice.id)).toEqual([]);
    const missing = await refusal(createAgent(alice.id, { name: 'Thief', mcpTools: [{ serverId: 'no-such-server', tools: 'all' }] }));
    expect(missing.fields).toEqual({ mcpTools: 'Not an MCP server you can use: no-such-server' });

    const agent = await createAgent(alice.id, { name: 'Honest' });
    const updated = await refusal(updateAgent(alice.id, agent.id, { mcpTools: [{ serverId: bobs.id, tools: ['read'] }] }));
    expect(updated.fields).toEqual({ mcpTools: `Not an MCP server you can use: ${bobs.id}` });
    expect((await getAgent(alice.id, agent.id)).mcpTools).toEqual([]);
  });

  it('refuses an MCP approval rule for a server the agent does not use, also when a patch drops the server', async () => {
    const alice = await makeUser('alice');
    const mine = fake.addServer(alice.id, 'Mine', [fake.fakeTool('write')]);
    const other = fake.addServer(alice.id, 'Other', [fake.fakeTool('write')]);
    const stray = await refusal(createAgent(alice.id, { name: 'A', mcpTools: [{ serverId: mine.id, tools: 'all' }], approvalTools: [mcpToolName(other.id, 'write')] }));
    expect(stray.fields).toEqual({ approvalTools: `Not a tool of this agent's MCP servers: ${mcpToolName(other.id, 'write')}` });

    const agent = await createAgent(alice.id, { name: 'B', mcpTools: [{ serverId: mine.id, tools: 'all' }], approvalTools: [mcpToolName(mine.id, 'write')] });
    const dropped = await refusal(updateAgent(alice.id, agent.id, { mcpTools: [] }));
    expect(dropped.fields).toMatchObject({ approvalTools: expect.stringContaining(mcpToolName(mine.id, 'write')) });
    // Dropping both at once is fine.
    expect((await updateAgent(alice.id, agent.id, { mcpTools: [], approvalTools: [] })).mcpTools).toEqual([]);
  });

  it('bounds servers, tools per server and tool names at their limits (ASCII, CJK, emoji)', () => {
    const servers = (n: number) => Array.from({ length: n }, (_, i) => ({ serverId: `s${i}`, tools: 'all' as const }));
    expect(fieldsOf({ name: 'x', mcpTools: servers(M.servers) })).toEqual([]);
    expect(fieldsOf({ name: 'x', mcpTools: servers(M.servers + 1) })).toEqual(['mcpTools']);

    const tools = (n: number) => [{ serverId: 's', tools: Array.from({ length: n }, (_, i) => `t${i}`) }];
    expect(fieldsOf({ name: 'x', mcpTools: tools(M.toolsPerServer) })).toEqual([]);
    expect(fieldsOf({ name: 'x', mcpTools: tools(M.toolsPerServer + 1) })).toEqual(['mcpTools.0.tools']);

    for (const ch of ['a', '読', '🔥']) {
      expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: [ch.repeat(M.toolNameChars)] }] })).toEqual([]);
      expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: [ch.repeat(M.toolNameChars + 1)] }] })).toEqual(['mcpTools.0.tools.0']);
    }
    expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: [] }] })).toEqual(['mcpTools.0.tools']);
    expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: ['a', 'a'] }] })).toEqual(['mcpTools.0.tools']);
    expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: 'all' }, { serverId: 's', tools: 'all' }] })).toEqual(['mcpTools']);
    expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's', tools: ['line\nbreak'] }] })).toEqual(['mcpTools.0.tools.0']);
    expect(fieldsOf({ name: 'x', mcpTools: [{ serverId: 's'.repeat(M.serverIdChars + 1), tools: 'all' }] })).toEqual(['mcpTools.0.serverId']);
    expect(fieldsOf({ mcpTools: [{ serverId: 's', tools: 'all', extra: 1 }] }, agentPatchSchema)).toEqual(['mcpTools.0']);
  });

  it('approval rules take built-in names and well-formed MCP names only', () => {
    expect(fieldsOf({ name: 'x', approvalTools: ['calculator', 'mcp_0123abcd_write'] })).toEqual([]);
    expect(fieldsOf({ name: 'x', approvalTools: ['mcp_nothex00_write'] })).toEqual(['approvalTools']);
    expect(fieldsOf({ name: 'x', approvalTools: ['write'] })).toEqual(['approvalTools']);
  });
});
