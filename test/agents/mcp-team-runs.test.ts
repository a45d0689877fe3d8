import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mcpToolName } from '@/lib/mcp/tool-name';
import { registerMcpTools } from '@/server/mcp/tool-group/register';
import { sendRequest } from '@/server/teams/requests';
import { eventsOf, ofType } from '../observe/helpers';
import { settled, withScheduler } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import * as fake from './mcp-fake';

// The MCP client's facade is replaced by an in-memory one (mcp-fake.ts): this is about team runs, not the client.
vi.mock('@/server/mcp/index', () => import('./mcp-fake'));

withScheduler();
beforeAll(() => registerMcpTools());
afterEach(() => fake.resetFake());

describe('MCP tools of a team member', () => {
  it("a member's call runs in its job's run, whose steps (the team's Runs) name the server; a member without the server has no such tool", async () => {
    const ann = await makeUser('ann');
    const server = fake.addServer(ann.id, 'Notes', [fake.fakeTool('save')]);
    const save = mcpToolName(server.id, 'save');
    const { team } = await makeTeam(ann.id, ['Scribe'], { mcpTools: [{ serverId: server.id, tools: 'all' }] });
    const member = team.members[0]!;
    const job = (await sendRequest(ann.id, team.id, { memberIds: [member.id], text: `/call ${save} {"text":"minutes"}`, draftKey: 'a' })).jobs[0]!;
    const done = await settled(job.id);
    expect(done.status).toBe('completed');
    expect(fake.calls.map((c) => [c.tool, c.args])).toEqual([['save', { text: 'minutes' }]]);
    const [step] = ofType(await eventsOf(done.runId!), 'step.tool');
    expect(step).toMatchObject({ tool: save, status: 'success', mcp: { server: 'Notes', tool: 'save' } });

    // What must not happen: a member whose agent has no MCP selection reaching the server by naming the tool.
    const { team: plain } = await makeTeam(ann.id, ['Plain']);
    const other = (await sendRequest(ann.id, plain.id, { memberIds: [plain.members[0]!.id], text: `/call ${save} {"text":"x"}`, draftKey: 'b' })).jobs[0]!;
    await settled(other.id);
    expect(fake.calls).toHaveLength(1);
  });
});
