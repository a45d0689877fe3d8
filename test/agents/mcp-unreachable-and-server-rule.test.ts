import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpServerRule } from '@/lib/mcp/approval-rule';
import { mcpToolName } from '@/lib/mcp/tool-name';
import type { AssemblyDescriptor } from '@/lib/types/assembly';
import { createAgent, updateAgent } from '@/server/agents/catalog';
import { getState, resume, start } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { registerMcpTools } from '@/server/mcp/tool-group/register';
import { stepItem } from '@/components/runs/step-items';
import { eventsOf, ofType } from '../observe/helpers';
import { makeUser } from '../support/users';
import { conversationWith, finished } from './helpers';
import * as fake from './mcp-fake';

// ADR 057 on the run side, with the MCP client's facade in memory (mcp-fake.ts): a server unreachable at run start
// still gives the run its tools as last listed (a call fails naming the server; the run goes on); a server never
// listed gives none and the run's setup says why; "ask before every tool of this server" holds every call of it.
vi.mock('@/server/mcp/index', () => import('./mcp-fake'));

beforeAll(() => registerMcpTools());
afterEach(() => fake.resetFake());

const key = () => crypto.randomUUID();
const assemblyOf = async (run: Run) => ((await getDb().select().from(schema.runs).where(eq(schema.runs.id, run.id)))[0]!.assembly as { descriptor: AssemblyDescriptor }).descriptor;
const call = (name: string, args: unknown) => `/call ${name} ${JSON.stringify(args)}`;

describe('a server unreachable when a run starts', () => {
  it('offers its tools as last listed; a call fails naming the server, and the run goes on to answer', async () => {
    const alice = await makeUser('alice');
    const server = fake.addServer(null, 'flaky', [fake.fakeTool('echo')]);
    fake.setUnreachable(server.id);
    const echo = mcpToolName(server.id, 'echo');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], mcpTools: [{ serverId: server.id, tools: 'all' }] });
    const { run } = await start(alice.id, conversation.id, { text: `${call(echo, { text: 'hi' })}\n/reply went on` }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');

    const descriptor = await assemblyOf(run);
    // The fingerprint is of the schema as last listed, not of nothing.
    expect(descriptor.tools.filter((t) => t.group === 'mcp')).toEqual([{ name: echo, group: 'mcp', origin: 'mcp:flaky/echo', schemaHash: fake.fakeTool('echo').schemaHash }]);
    expect(descriptor.unavailable).toBeUndefined();
    const [step] = ofType(await eventsOf(run.id), 'step.tool');
    expect(step).toMatchObject({ tool: echo, status: 'error', mcp: { server: 'flaky', tool: 'echo' } });
    const { messages } = await getState(alice.id, conversation.id);
    const result = messages.find((m) => m.role === 'tool')!;
    expect(result.text).toContain('The MCP server "flaky" could not be reached, so "echo" on the MCP server "flaky" did not run');
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', text: 'went on' });
    expect(fake.calls).toEqual([]);
  });

  it('a server never listed offers no tools, and the assembly record says so by origin and a code', async () => {
    const alice = await makeUser('alice');
    const never = fake.addServer(null, 'never-seen', [fake.fakeTool('echo')]);
    fake.setUnreachable(never.id, { neverListed: true });
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], mcpTools: [{ serverId: never.id, tools: 'all' }] });
    const { run } = await start(alice.id, conversation.id, { text: '/reply hello' }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');
    const descriptor = await assemblyOf(run);
    expect(descriptor.tools.some((t) => t.group === 'mcp')).toBe(false);
    expect(descriptor.unavailable).toEqual([{ origin: 'mcp:never-seen', reason: 'never_listed' }]);
  });
});

describe('"ask before every tool of this server"', () => {
  it('holds each tool of the server, one it adds later too, and no other server\'s tool', async () => {
    const alice = await makeUser('alice');
    const asked = fake.addServer(null, 'asked', [fake.fakeTool('echo')]);
    const free = fake.addServer(null, 'free', [fake.fakeTool('echo')]);
    const { conversation } = await conversationWith(alice.id, {
      toolGroups: ['utility'],
      mcpTools: [
        { serverId: asked.id, tools: 'all' },
        { serverId: free.id, tools: 'all' },
      ],
      approvalTools: [mcpServerRule(asked.id)],
    });
    // Added by the server after the rule was written.
    fake.setTools(asked.id, [fake.fakeTool('echo'), fake.fakeTool('later')]);
    const later = mcpToolName(asked.id, 'later');
    const { run } = await start(alice.id, conversation.id, { text: call(later, { text: 'x' }) }, { idempotencyKey: key() });
    expect(await finished(run.id)).toMatchObject({ status: 'interrupted', interrupt: { type: 'approval', tool: later, mcp: { server: 'asked', tool: 'later' } } });
    // What must not happen: the call reaching the server before the person said yes.
    expect(fake.calls).toEqual([]);
    const { run: resumed } = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: key() });
    expect((await finished(resumed.id)).status).toBe('success');
    expect(fake.calls.map((c) => `${c.server}/${c.tool}`)).toEqual(['asked/later']);

    // The other server's tool runs without asking.
    const { run: other } = await start(alice.id, conversation.id, { text: call(mcpToolName(free.id, 'echo'), { text: 'y' }) }, { idempotencyKey: key() });
    expect((await finished(other.id)).status).toBe('success');
    expect(fake.calls.map((c) => `${c.server}/${c.tool}`)).toEqual(['asked/later', 'free/echo']);
    expect((await assemblyOf(other)).approvalTools).toEqual([mcpServerRule(asked.id)]);
  });

  it('is refused at approvalTools for a server the agent does not use, another account\'s included, and for a malformed id', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const mine = fake.addServer(alice.id, 'mine', [fake.fakeTool('echo')]);
    const bobs = fake.addServer(bob.id, 'bobs', [fake.fakeTool('echo')]);
    const base = { name: 'Asker', instructions: 'x', model: 'scripted', mcpTools: [{ serverId: mine.id, tools: 'all' as const }] };
    const ok = await createAgent(alice.id, { ...base, approvalTools: [mcpServerRule(mine.id)] });
    expect(ok.approvalTools).toEqual([mcpServerRule(mine.id)]);
    // Another account's server: not one the agent uses (and it could not be selected either).
    await expect(createAgent(alice.id, { ...base, name: 'B', approvalTools: [mcpServerRule(bobs.id)] })).rejects.toMatchObject({ status: 422, fields: { approvalTools: expect.stringContaining(bobs.id) } });
    await expect(
      createAgent(alice.id, { ...base, name: 'C', mcpTools: [{ serverId: bobs.id, tools: 'all' }], approvalTools: [mcpServerRule(bobs.id)] }),
    ).rejects.toMatchObject({ status: 422, fields: { mcpTools: expect.any(String) } });
    // A patch that drops the server must drop its rule too.
    await expect(updateAgent(alice.id, ok.id, { mcpTools: [] })).rejects.toMatchObject({ status: 422, fields: { approvalTools: expect.any(String) } });
    await expect(createAgent(alice.id, { ...base, name: 'D', approvalTools: ['mcp_server:not-a-uuid'] })).rejects.toMatchObject({ status: 422, fields: { approvalTools: expect.stringContaining('Unknown tool') } });
  });
});

describe('an MCP call as the person reads it', () => {
  it("is named by the tool and its server in Steps ('Assistant called …'), in the chat's calls and results, declined or run", async () => {
    const alice = await makeUser('alice');
    const server = fake.addServer(null, 'stub-tools', [fake.fakeTool('shout'), fake.fakeTool('whisper')]);
    const shout = mcpToolName(server.id, 'shout');
    const whisper = mcpToolName(server.id, 'whisper');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], mcpTools: [{ serverId: server.id, tools: 'all' }], approvalTools: [whisper] });
    const { run } = await start(alice.id, conversation.id, { text: `${call(shout, { text: 'a' })}\n/reply done` }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');
    const [assistant] = ofType(await eventsOf(run.id), 'step.assistant');
    expect(assistant!.toolCalls).toEqual([expect.objectContaining({ name: shout, mcp: { server: 'stub-tools', tool: 'shout' } })]);
    expect(stepItem({ ...assistant!, runId: run.id, seq: 1, at: new Date().toISOString() } as never).title).toBe('Assistant called shout of MCP server stub-tools');

    // A declined call never ran, so it has no result artifact: it is named from the graph's own record of it.
    const { run: asked } = await start(alice.id, conversation.id, { text: call(whisper, { text: 'b' }) }, { idempotencyKey: key() });
    expect((await finished(asked.id)).status).toBe('interrupted');
    const { run: declined } = await resume(alice.id, conversation.id, { approved: false }, { idempotencyKey: key() });
    expect((await finished(declined.id)).status).toBe('success');
    const [declinedStep] = ofType(await eventsOf(declined.id), 'step.tool');
    expect(declinedStep).toMatchObject({ declined: true, mcp: { server: 'stub-tools', tool: 'whisper' } });

    const { messages } = await getState(alice.id, conversation.id);
    const calls = messages.flatMap((m) => m.toolCalls ?? []);
    expect(calls.map((c) => [c.name, c.mcp])).toEqual([
      [shout, { server: 'stub-tools', tool: 'shout' }],
      [whisper, { server: 'stub-tools', tool: 'whisper' }],
    ]);
    expect(messages.filter((m) => m.role === 'tool').map((m) => m.mcp)).toEqual([
      { server: 'stub-tools', tool: 'shout' },
      { server: 'stub-tools', tool: 'whisper' },
    ]);
    expect(fake.calls.map((c) => c.tool)).toEqual(['shout']);
  });

  it('a built-in call keeps its own name, and a model cannot make a call claim an MCP server', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'] });
    const { run } = await start(alice.id, conversation.id, { text: `${call('calculator', { expression: '1+1', mcp: { server: 'x', tool: 'y' } })}\n/reply ok` }, { idempotencyKey: key() });
    await finished(run.id);
    const [assistant] = ofType(await eventsOf(run.id), 'step.assistant');
    expect(assistant!.toolCalls[0]).not.toHaveProperty('mcp');
    const { messages } = await getState(alice.id, conversation.id);
    expect(messages.flatMap((m) => m.toolCalls ?? [])[0]).not.toHaveProperty('mcp');
    expect(messages.find((m) => m.role === 'tool')).not.toHaveProperty('mcp');
  });
});
