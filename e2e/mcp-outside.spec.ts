import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { mcpToolName } from '../lib/mcp/tool-name';
import { DATA_DIR, ROOT_DIR } from './env';
import { expect, test } from './fixtures';

/**
 * Issue 28, tried from outside: an official MCP server that no other test uses (@modelcontextprotocol/server-memory,
 * a knowledge graph kept in a JSONL file), driven through the built app with nothing but the HTTP API. An admin
 * registers it as a deployment-wide stdio server (the app starts it over stdio in DATA_DIR/mcp/<id>), reads its tools;
 * a member gives an agent two of them, and a scripted message calls one. The step, the result, the provenance origin
 * `mcp:<server>/<tool>` and the server's own file say the call happened once, and a tool the agent was not given is
 * not called. What must not happen: the env value (a path) coming back in an answer; the unselected tool running.
 */

test.describe.configure({ timeout: 60_000 });

const MEMORY = path.join(ROOT_DIR, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const FINAL = /^(success|error|interrupted|cancelled)$/;

type Run = { id: string; status: string; assembly: { tools: Array<{ name: string; group: string; origin?: string }> } };
type ToolStep = { type: string; tool: string; status: string; result: string; mcp?: { server: string; tool: string } };
type Message = { role: string; text: string; toolName?: string; status?: string; provenance: { contentKind: string; origin?: string } };

async function json<T>(response: Awaited<ReturnType<APIRequestContext['get']>>, status: number): Promise<T> {
  expect(response.status(), await response.text()).toBe(status);
  return (await response.json()) as T;
}

/** Send a message and wait (bounded poll of GET /runs/:id) for its run to end. */
async function send(api: APIRequestContext, conversationId: string, text: string): Promise<Run> {
  const { run } = await json<{ run: Run }>(await api.post(`/api/v1/conversations/${conversationId}/messages`, { data: { text, idempotencyKey: crypto.randomUUID() } }), 202);
  let last = run;
  await expect
    .poll(async () => (last = (await json<{ run: Run }>(await api.get(`/api/v1/runs/${run.id}`), 200)).run).status, { timeout: 20_000 })
    .toMatch(FINAL);
  return last;
}

async function toolSteps(api: APIRequestContext, runId: string): Promise<ToolStep[]> {
  const { events } = await json<{ events: ToolStep[] }>(await api.get(`/api/v1/runs/${runId}/events?limit=200`), 200);
  return events.filter((e) => e.type === 'step.tool');
}

test('server-memory over stdio, through the API only: registered by an admin, two tools given to an agent, one called by a scripted run', async ({ api, accounts }) => {
  const admin = await accounts.create('mcp-outside-admin', { admin: true });
  const adminApi = await accounts.apiFor(admin);
  const name = `memory-${crypto.randomUUID().slice(0, 8)}`;

  const server = await json<{ id: string; envNames: string[] }>(
    await adminApi.post('/api/v1/admin/mcp/servers', { data: { transport: 'stdio', name, command: process.execPath, args: [MEMORY] } }),
    201,
  );
  try {
    // The graph file goes in the working directory the app gave the server (known once the server has its id).
    const workDir = path.join(DATA_DIR, 'mcp', server.id);
    const graphFile = path.join(workDir, 'memory.jsonl');
    const patched = await adminApi.patch(`/api/v1/admin/mcp/servers/${server.id}`, { data: { env: { MEMORY_FILE_PATH: graphFile } } });
    expect(await patched.text()).not.toContain(graphFile);
    expect((await json<{ envNames: string[] }>(patched, 200)).envNames).toEqual(['MEMORY_FILE_PATH']);

    // Its tools, read from the server over stdio (what a member sees of a deployment-wide server too).
    const status = await json<{ status: string; error?: string; tools: Array<{ name: string; inputSchema: { properties?: Record<string, unknown> } }> }>(
      await api.get(`/api/v1/mcp/servers/${server.id}/tools`),
      200,
    );
    expect(status.error).toBeUndefined();
    expect(status.status).toBe('connected');
    const names = status.tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['create_entities', 'search_nodes', 'read_graph', 'delete_entities']));
    expect(Object.keys(status.tools.find((t) => t.name === 'create_entities')!.inputSchema.properties ?? {})).toEqual(['entities']);

    // A member's agent with two of its tools.
    const agent = await json<{ id: string; mcpTools: unknown }>(
      await api.post('/api/v1/agents', { data: { name: 'Archivist', toolGroups: ['utility'], mcpTools: [{ serverId: server.id, tools: ['create_entities', 'search_nodes'] }] } }),
      201,
    );
    expect(agent.mcpTools).toEqual([{ serverId: server.id, tools: ['create_entities', 'search_nodes'] }]);
    const { id: conversationId } = await json<{ id: string }>(await api.post('/api/v1/conversations', { data: { agentId: agent.id } }), 201);

    const create = mcpToolName(server.id, 'create_entities');
    const entity = { name: 'Ada 世界', entityType: 'person', observations: ['wrote the first program 🎉'] };
    const run = await send(api, conversationId, `Remember Ada.\n/call ${create} ${JSON.stringify({ entities: [entity] })}`);
    expect(run.status).toBe('success');
    // The run's setup lists exactly the two tools, by their origin.
    expect(run.assembly.tools.filter((t) => t.group === 'mcp').map((t) => [t.name, t.origin]).sort()).toEqual(
      [
        [create, `mcp:${name}/create_entities`],
        [mcpToolName(server.id, 'search_nodes'), `mcp:${name}/search_nodes`],
      ].sort(),
    );

    // The step names the server and the tool; the result is the server's answer (the entity it created).
    const [step, ...more] = await toolSteps(api, run.id);
    expect(more).toEqual([]);
    expect(step).toMatchObject({ tool: create, status: 'success', mcp: { server: name, tool: 'create_entities' } });
    expect(JSON.parse(step!.result)).toEqual([entity]);

    // The tool message carries the logical origin, and no path or command.
    const { messages } = await json<{ messages: Message[] }>(await api.get(`/api/v1/conversations/${conversationId}`), 200);
    const result = messages.filter((m) => m.role === 'tool');
    expect(result).toHaveLength(1);
    expect(result[0]).toMatchObject({ toolName: create, provenance: { contentKind: 'tool_result', origin: `mcp:${name}/create_entities` } });
    expect(result[0]!.status).toBeUndefined();
    expect(JSON.stringify(messages)).not.toContain(workDir);

    // The server ran where the app put it and wrote its graph there: one entity, written once.
    const lines = fs.readFileSync(graphFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([{ type: 'entity', ...entity }]);

    // The abuse case: a tool of the same server the agent was not given is not offered, so it never runs.
    const forbidden = await send(api, conversationId, `/call ${mcpToolName(server.id, 'delete_entities')} ${JSON.stringify({ entityNames: [entity.name] })}`);
    const [refused] = await toolSteps(api, forbidden.id);
    expect(refused).toMatchObject({ tool: mcpToolName(server.id, 'delete_entities'), status: 'error' });
    expect(refused!.mcp).toBeUndefined();
    expect(fs.readFileSync(graphFile, 'utf8')).toContain('Ada 世界');
  } finally {
    expect((await adminApi.delete(`/api/v1/admin/mcp/servers/${server.id}`)).status()).toBe(204);
  }
});
