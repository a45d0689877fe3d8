import '../auth/support/next-auth';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as adminTools } from '@/app/api/v1/admin/mcp/servers/[id]/tools/route';
import { GET as toolsOf } from '@/app/api/v1/mcp/servers/[id]/tools/route';
import { GET as listOwn, POST as createOwn } from '@/app/api/v1/mcp/servers/route';
import { LIMITS } from '@/lib/limits';
import type { McpServerStatusView } from '@/lib/schemas/mcp-servers';
import { getDb, schema, writeTx } from '@/server/db';
import { mcpServerTools } from '@/server/mcp';
import { McpConnection } from '@/server/mcp/connection';
import { stopAllMcpConnections } from '@/server/mcp/connections';
import { recordMcpDiscovery, storedDiscoveryError, storedMcpDiscovery } from '@/server/mcp/discovery-store';
import { updateAdminMcpServer } from '@/server/mcp/servers';
import { connectionSpecOf, createDeploymentMcpServer, deleteMcpServer, mcpServerRowById, toMcpServerRef } from '@/server/mcp/store';
import { openTransport } from '@/server/mcp/transport';
import { makeAccount } from '../admin/helpers';
import { call } from '../support/teams';
import { STUB, tempDir } from './support';

// Each MCP server's last discovery is shared through the database (ADR 057). What must not happen: two processes (or
// a page and a run) disagreeing about a server's status or tools; an error wiping the tools a run still needs; a
// discovery of a definition since edited or deleted coming back; another account reading a server's discovery.

const dataDir = tempDir('discovery');
const opened: McpConnection[] = [];

beforeEach(async () => {
  await stopAllMcpConnections();
  await writeTx(async (tx) => {
    await tx.delete(schema.mcpServers);
  });
});
afterAll(async () => {
  await Promise.all(opened.map((c) => c.dispose()));
  await stopAllMcpConnections();
});

async function stubServer(env: Record<string, string> = {}) {
  return createDeploymentMcpServer({ transport: 'stdio', name: 'stub', command: process.execPath, args: [STUB], env, timeoutMs: 10_000 } as never);
}

/** Another app process's connection to the same definition (its own server process), writing to the same database. */
async function otherProcess(serverId: string, over: { env?: Record<string, string>; command?: string } = {}) {
  const row = (await mcpServerRowById(serverId))!;
  const spec = { ...connectionSpecOf(row), ...(over.env ? { env: over.env } : {}), ...(over.command ? { command: over.command } : {}) };
  const conn = new McpConnection(spec, { open: (s) => openTransport(s, { dataDir }), record: (o) => recordMcpDiscovery(row.id, spec.version, o) });
  opened.push(conn);
  return conn;
}

const names = (s: { tools: Array<{ name: string }> }) => s.tools.map((t) => t.name);

describe("a server's last discovery, shared by every process", () => {
  it('is written by the process that lists the server, with schemas and hashes, and read back by the routes', async () => {
    const admin = await makeAccount('admin', 'admin');
    const row = await stubServer();
    const res = await call(adminTools, { headers: admin.auth, params: { id: row.id } });
    expect(res.status).toBe(200);
    const view = res.body as McpServerStatusView;
    expect(view).toMatchObject({ status: 'connected', listedAt: view.checkedAt });
    const stored = (await storedMcpDiscovery(row.id))!;
    expect(stored).toEqual(view);
    const echo = stored.tools.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', required: ['message'] });
    expect(echo.schemaHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a page in one process shows another process's newer discovery, not its own cached list", async () => {
    const admin = await makeAccount('admin', 'admin');
    const row = await stubServer();
    const first = (await call(adminTools, { headers: admin.auth, params: { id: row.id } })).body as McpServerStatusView;
    expect(names(first)).not.toContain('t0');
    // Another process lists the same server, which now offers two more tools.
    const other = await otherProcess(row.id, { env: { STUB_TOOLS: '2' } });
    expect((await other.tools(true)).tools.map((t) => t.name)).toContain('t1');
    // This process still holds its cached list; its page answers the shared record.
    const again = (await call(adminTools, { headers: admin.auth, params: { id: row.id } })).body as McpServerStatusView;
    expect(names(again)).toEqual(expect.arrayContaining(['t0', 't1', 'echo']));
    expect(Date.parse(again.checkedAt)).toBeGreaterThanOrEqual(Date.parse(first.checkedAt));
    // And a run's view (the facade every run reads) agrees with the page.
    expect(names(await mcpServerTools(toMcpServerRef(row)))).toEqual(names(again));
  });

  it('an unreachable server keeps its tools as last listed, with the error and when it was checked', async () => {
    const row = await stubServer();
    const listed = await mcpServerTools(toMcpServerRef(row));
    expect(listed.status).toBe('connected');
    const down = await otherProcess(row.id, { command: path.join(dataDir, 'no-such-command') });
    expect((await down.tools(true)).status).toBe('error');
    const stored = (await storedMcpDiscovery(row.id))!;
    expect(stored.status).toBe('error');
    expect(stored.error).toMatch(/could not be started or reached/);
    expect(names(stored)).toEqual(names(listed));
    expect(stored.listedAt).toBe(listed.listedAt);
    expect(Date.parse(stored.checkedAt)).toBeGreaterThanOrEqual(Date.parse(listed.checkedAt));
  });

  it('a server never listed has an error record without tools (listedAt null)', async () => {
    const row = await createDeploymentMcpServer({ transport: 'stdio', name: 'broken', command: path.join(dataDir, 'missing'), args: [], timeoutMs: 2_000 } as never);
    const view = await mcpServerTools(toMcpServerRef(row));
    expect(view).toMatchObject({ status: 'error', tools: [], listedAt: null });
    expect(await storedMcpDiscovery(row.id)).toMatchObject({ status: 'error', tools: [], listedAt: null, error: expect.stringContaining('broken') });
  });

  it('drops a discovery made for a definition since edited, and the edit clears the old one; a delete removes it', async () => {
    const row = await stubServer();
    const stale = await otherProcess(row.id, { env: { STUB_TOOLS: '1' } });
    await mcpServerTools(toMcpServerRef(row));
    expect(await storedMcpDiscovery(row.id)).not.toBeNull();
    // As the admin's edit does it: the definition changes and this process drops its connection.
    await updateAdminMcpServer(row.id, { timeoutMs: 20_000 });
    const edited = (await mcpServerRowById(row.id))!;
    expect(await storedMcpDiscovery(row.id)).toBeNull();
    // The other process lists with the definition it had before the edit: what it learnt is not kept.
    expect((await stale.tools(true)).tools.map((t) => t.name)).toContain('t0');
    expect(await storedMcpDiscovery(row.id)).toBeNull();
    await mcpServerTools(toMcpServerRef(edited));
    expect(names((await storedMcpDiscovery(row.id))!)).not.toContain('t0');
    await deleteMcpServer(edited);
    expect(await getDb().select().from(schema.mcpDiscoveries).where(eq(schema.mcpDiscoveries.serverId, row.id))).toEqual([]);
  });

  it("another account's server's discovery is a 404, like a missing id; the owner reads it", async () => {
    const ann = await makeAccount('ann', 'member');
    const bob = await makeAccount('bob', 'member');
    // An address that never resolves: the owner's read is an error record, never listed.
    const created = await call(createOwn, { method: 'POST', headers: ann.auth, body: { transport: 'http', name: 'anns', url: 'https://mcp.invalid/mcp', timeoutMs: 2_000 } });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call(toolsOf, { headers: bob.auth, params: { id } })).status).toBe(404);
    expect((await call(listOwn, { headers: bob.auth })).raw).not.toContain(id);
    const own = await call(toolsOf, { headers: ann.auth, params: { id } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ status: 'error', tools: [], listedAt: null });
    // Bob's refused read wrote nothing either: the one record is the owner's read.
    expect(await getDb().select().from(schema.mcpDiscoveries)).toHaveLength(1);
  });
});

describe('the stored error', () => {
  const max = LIMITS.mcp.discoveryErrorChars;
  it.each([
    ['ASCII', 'a'],
    ['CJK', '界'],
    ['emoji', '🙂'],
  ])('is kept whole at the limit and cut with an ellipsis one past it (%s), on one line', (_, ch) => {
    expect(storedDiscoveryError(ch.repeat(max))).toBe(ch.repeat(max));
    const cut = storedDiscoveryError(ch.repeat(max + 1));
    expect([...cut]).toHaveLength(max);
    expect(cut.endsWith('…')).toBe(true);
    expect(storedDiscoveryError('first\nsecond\r\nthird\u2028x')).toBe('first second third x');
  });

  it('is stored with NUL repaired (the stored-text rule), on either engine', async () => {
    const row = await stubServer();
    await recordMcpDiscovery(row.id, row.updatedAt.getTime(), { ok: false, error: 'bad\u0000byte', at: Date.now() });
    expect((await storedMcpDiscovery(row.id))!.error).toBe('bad\uFFFDbyte');
  });
});
