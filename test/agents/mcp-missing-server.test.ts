import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpToolName } from '@/lib/mcp/tool-name';
import { resume, start } from '@/server/agents/runs';
import { schema, writeTx } from '@/server/db';
import { registerMcpTools } from '@/server/mcp/tool-group/register';
import { stepItem } from '@/components/runs/step-items';
import { modelWaitSince } from '@/components/runs/model-wait';
import { eventsOf, ofType } from '../observe/helpers';
import { makeUser } from '../support/users';
import { conversationWith, finished } from './helpers';
import * as fake from './mcp-fake';

// An agent can name an MCP server its owner may not use when the run starts: one deleted before deletes took
// servers out of agents (older data), another account's, or one deleted while a run waited for the person (a resume
// is built from the setup recorded at its start). The run goes on without its tools and its steps say so, by the
// server's id. What must not happen: silence (the trial's complaint), a failed run, or the name of a server that is
// not the owner's shown anywhere.
vi.mock('@/server/mcp/index', () => import('./mcp-fake'));

beforeAll(() => registerMcpTools());
afterEach(() => fake.resetFake());

const key = () => crypto.randomUUID();

describe('an agent naming MCP servers its owner may not use', () => {
  it("answers without their tools, and its steps say which servers' tools were not offered, by id only", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const mine = fake.addServer(alice.id, 'mine', [fake.fakeTool('echo')]);
    const bobs = fake.addServer(bob.id, 'bobs-secret-server', [fake.fakeTool('echo')]);
    const deleted = crypto.randomUUID();
    const { conversation } = await conversationWith(alice.id, {
      toolGroups: ['utility'],
      mcpTools: [
        { serverId: deleted, tools: 'all' },
        { serverId: mine.id, tools: 'all' },
        { serverId: bobs.id, tools: ['echo'] },
      ],
      approvalTools: [mcpToolName(deleted, 'find')],
    });
    const { run } = await start(alice.id, conversation.id, { text: `/call ${mcpToolName(mine.id, 'echo')} {"text":"hi"}\n/reply done` }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');

    const events = await eventsOf(run.id);
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['run.started', 'tools.unavailable']);
    expect(ofType(events, 'tools.unavailable')).toEqual([expect.objectContaining({ mcpServers: [deleted, bobs.id] })]);
    // The usable server's tool was offered and ran.
    expect(fake.calls.map((c) => `${c.server}/${c.tool}`)).toEqual(['mine/echo']);
    expect(ofType(events, 'run.finished')).toEqual([expect.objectContaining({ outcome: 'completed' })]);

    const step = stepItem(ofType(events, 'tools.unavailable')[0]!);
    expect(step).toMatchObject({ kind: 'notice', tone: 'warning', title: "2 MCP servers no longer exist or are not yours to use; their tools were not offered" });
    expect(step.kind === 'notice' && step.detail).toContain(`${deleted}, ${bobs.id}`);
    // Another account's server is never named, in the record or what the person reads.
    expect(JSON.stringify(events)).not.toContain('bobs-secret-server');
    // Right after the start the run still waits for its model: the note is not taken for an answer.
    expect(modelWaitSince(events.slice(0, 2))).toBe(events[1]!.at);
  });

  it('records nothing of the kind when every server it names is usable', async () => {
    const alice = await makeUser('alice');
    const mine = fake.addServer(alice.id, 'mine', [fake.fakeTool('echo')]);
    const { conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], mcpTools: [{ serverId: mine.id, tools: 'all' }] });
    const { run } = await start(alice.id, conversation.id, { text: '/reply hello' }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('success');
    expect(ofType(await eventsOf(run.id), 'tools.unavailable')).toEqual([]);
  });

  it('a resume after the server was deleted says so in its own steps, and the run ends', async () => {
    const alice = await makeUser('alice');
    const server = fake.addServer(alice.id, 'asked', [fake.fakeTool('echo')]);
    const echo = mcpToolName(server.id, 'echo');
    const { agent, conversation } = await conversationWith(alice.id, { toolGroups: ['utility'], mcpTools: [{ serverId: server.id, tools: 'all' }], approvalTools: [echo] });
    const { run } = await start(alice.id, conversation.id, { text: `/call ${echo} {"text":"x"}\n/reply after` }, { idempotencyKey: key() });
    expect((await finished(run.id)).status).toBe('interrupted');
    expect(ofType(await eventsOf(run.id), 'tools.unavailable')).toEqual([]);

    fake.removeServer(server.id);
    // As a delete does: the server goes from the agent too (the resume runs with the setup recorded at the start).
    await writeTx((tx) => tx.update(schema.agents).set({ mcpTools: [], approvalTools: [] }).where(eq(schema.agents.id, agent.id)));
    const { run: resumed } = await resume(alice.id, conversation.id, { approved: true }, { idempotencyKey: key() });
    // The approved call finds no such tool (a failed tool call the model reads), and the run goes on to answer.
    expect((await finished(resumed.id)).status).toBe('success');
    const events = await eventsOf(resumed.id);
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(['run.started', 'resume', 'tools.unavailable']);
    expect(ofType(events, 'tools.unavailable')).toEqual([expect.objectContaining({ mcpServers: [server.id] })]);
    expect(ofType(events, 'step.tool')).toEqual([expect.objectContaining({ tool: echo, status: 'error' })]);
    expect(fake.calls).toEqual([]);
  });

  it('is noted and read across copies of the notes module (instrumentation registers the group, a route may launch the run)', async () => {
    const first = await import('@/server/agents/tools/unavailable');
    vi.resetModules();
    const second = await import('@/server/agents/tools/unavailable');
    expect(second).not.toBe(first);
    const context = { ownerId: 'o', conversationId: 'c', runId: 'r', agentId: 'a' };
    first.noteMissingMcpServers(context, ['gone']);
    first.noteUnavailableTools(context, 'mcp', [{ origin: 'mcp:never', reason: 'never_listed' }]);
    expect(second.missingMcpServersOf(context)).toEqual(['gone']);
    expect(second.unavailableToolsOf(context)).toEqual([{ origin: 'mcp:never', reason: 'never_listed' }]);
  });
});
