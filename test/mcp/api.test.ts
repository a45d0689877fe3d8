import '../auth/support/next-auth';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as adminGet, PATCH as adminPatch, DELETE as adminDelete } from '@/app/api/v1/admin/mcp/servers/[id]/route';
import { GET as adminTools } from '@/app/api/v1/admin/mcp/servers/[id]/tools/route';
import { GET as adminList, POST as adminCreate } from '@/app/api/v1/admin/mcp/servers/route';
import { GET as getOne, PATCH as patchOne, DELETE as deleteOne } from '@/app/api/v1/mcp/servers/[id]/route';
import { GET as toolsOf } from '@/app/api/v1/mcp/servers/[id]/tools/route';
import { GET as listOwn, POST as createOwn } from '@/app/api/v1/mcp/servers/route';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx } from '@/server/db';
import { usableMcpServer, usableMcpServers, mcpOrigin } from '@/server/mcp';
import { stopAllMcpConnections } from '@/server/mcp/connections';
import { connectionSpecOf, mcpServerRowById } from '@/server/mcp/store';
import { makeAccount } from '../admin/helpers';
import { call } from '../support/teams';
import { EVERYTHING } from './support';

// The MCP server routes (ADR 054): an account's own servers (Streamable HTTP only) and the deployment's (admin).
// What must not happen: one account reading, changing or using another's server; an account defining a command;
// a secret (header value, env value, a URL's query) coming back in any answer.

const TOKEN = 'Bearer sk-SECRET-header-value-1234';
const URL_WITH_TOKEN = 'https://mcp.example.test/mcp?key=SECRET-query-token';

beforeEach(async () => {
  await stopAllMcpConnections();
  await writeTx(async (tx) => {
    await tx.delete(schema.mcpServers);
  });
});
afterAll(() => stopAllMcpConnections());

const httpBody = (over: Record<string, unknown> = {}) => ({ transport: 'http', name: 'search', url: URL_WITH_TOKEN, headers: { Authorization: TOKEN }, ...over });

async function ownServer(auth: Record<string, string>, over: Record<string, unknown> = {}) {
  const res = await call(createOwn, { method: 'POST', headers: auth, body: httpBody(over) });
  expect(res.status, res.raw).toBe(201);
  return res.body as { id: string; name: string };
}

describe("an account's own MCP servers", () => {
  it('creates an HTTP server, shows header names and a URL without its query, never a secret', async () => {
    const ann = await makeAccount('ann', 'member');
    const res = await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'search', transport: 'http', ownerId: ann.id, url: 'https://mcp.example.test/mcp?…', headerNames: ['Authorization'], timeoutMs: 60_000 });
    const listed = await call(listOwn, { headers: ann.auth });
    const one = await call(getOne, { headers: ann.auth, params: { id: (res.body as { id: string }).id } });
    for (const answer of [res.raw, listed.raw, one.raw]) {
      expect(answer).not.toContain('SECRET');
    }
    // At rest too: the row holds the secrets sealed only.
    const [row] = await getDb().select().from(schema.mcpServers);
    expect(JSON.stringify(row)).not.toContain('SECRET');
    expect(connectionSpecOf(row!).headers.Authorization).toBe(TOKEN);
    expect(connectionSpecOf(row!).url).toBe(URL_WITH_TOKEN);
  });

  it('refuses a stdio server from an account with 403, whatever the body says, and stores nothing', async () => {
    const ann = await makeAccount('ann', 'admin'); // even an admin: account servers are HTTP only
    for (const body of [
      { transport: 'stdio', name: 'shell', command: '/bin/sh', args: ['-c', 'id'] },
      { transport: 'http', name: 'sneaky', url: 'https://x.example.test/mcp', command: '/bin/sh' },
      { name: 'sneaky', env: { A: 'b' } },
    ]) {
      const res = await call(createOwn, { method: 'POST', headers: ann.auth, body });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'forbidden' } });
      // True for the admin asking too: not "only an admin can", but where a command-running server belongs.
      expect((res.body as { error: { message: string } }).error.message).toBe(
        "An account's own MCP servers are reached over Streamable HTTP (a URL); a server that runs a command (stdio) is deployment-wide, added by an admin on the Admin page",
      );
    }
    const own = await ownServer(ann.auth);
    const patched = await call(patchOne, { method: 'PATCH', headers: ann.auth, params: { id: own.id }, body: { command: '/bin/sh' } });
    expect(patched.status).toBe(403);
    expect(await getDb().select().from(schema.mcpServers)).toHaveLength(1);
  });

  it("answers 404 for another account's server ids on every route, and changes nothing", async () => {
    const ann = await makeAccount('ann', 'member');
    const bob = await makeAccount('bob', 'member');
    const anns = await ownServer(ann.auth);
    const before = JSON.stringify(await getDb().select().from(schema.mcpServers));
    const params = { id: anns.id };
    expect((await call(getOne, { headers: bob.auth, params })).status).toBe(404);
    expect((await call(patchOne, { method: 'PATCH', headers: bob.auth, params, body: { name: 'mine' } })).status).toBe(404);
    expect((await call(deleteOne, { method: 'DELETE', headers: bob.auth, params })).status).toBe(404);
    expect((await call(toolsOf, { headers: bob.auth, params })).status).toBe(404);
    const bobsList = await call(listOwn, { headers: bob.auth });
    expect(bobsList.raw).not.toContain(anns.id);
    expect(JSON.stringify(await getDb().select().from(schema.mcpServers))).toBe(before);
    // The facade agrees: bob can't use it, ann can.
    expect(await usableMcpServer(bob.id, anns.id)).toBeNull();
    expect((await usableMcpServers(bob.id)).map((s) => s.id)).not.toContain(anns.id);
    expect(await usableMcpServer(ann.id, anns.id)).toMatchObject({ id: anns.id, ownerId: ann.id, timeoutMs: 60_000 });
  });

  it('edits keep write-only values only when asked, and an answer still carries names only', async () => {
    const ann = await makeAccount('ann', 'member');
    const own = await ownServer(ann.auth, { headers: { Authorization: TOKEN, 'X-Team': 'SECRET-team' } });
    const res = await call(patchOne, { method: 'PATCH', headers: ann.auth, params: { id: own.id }, body: { timeoutMs: 5_000, keepHeaders: ['Authorization'], headers: { 'X-New': 'SECRET-new' } } });
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toMatchObject({ timeoutMs: 5_000, headerNames: ['Authorization', 'X-New'] });
    expect(res.raw).not.toContain('SECRET');
    const spec = connectionSpecOf((await mcpServerRowById(own.id))!);
    expect(spec.headers).toEqual({ Authorization: TOKEN, 'X-New': 'SECRET-new' });
  });

  it('refuses a name used by a deployment-wide server or by the same account (409), and allows it for another account', async () => {
    const admin = await makeAccount('admin', 'admin');
    const ann = await makeAccount('ann', 'member');
    const bob = await makeAccount('bob', 'member');
    expect((await call(adminCreate, { method: 'POST', headers: admin.auth, body: httpBody({ name: 'shared' }) })).status).toBe(201);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'shared' }) })).status).toBe(409);
    await ownServer(ann.auth, { name: 'mine' });
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'mine' }) })).status).toBe(409);
    expect((await call(createOwn, { method: 'POST', headers: bob.auth, body: httpBody({ name: 'mine' }) })).status).toBe(201);
  });

  it(`keeps at most ${LIMITS.mcp.perAccount} servers per account: the last one fits, one more is refused`, async () => {
    const ann = await makeAccount('ann', 'member');
    for (let i = 0; i < LIMITS.mcp.perAccount; i++) await ownServer(ann.auth, { name: `s${i}` });
    const res = await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'one-more' }) });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: { code: 'mcp_server_limit' } });
  });

  it('bounds names and fields at their limits, in ASCII, CJK and emoji', async () => {
    const ann = await makeAccount('ann', 'member');
    const atLimit = 'a'.repeat(LIMITS.mcp.name.maxChars);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: atLimit }) })).status).toBe(201);
    for (const name of [`${atLimit}a`, '世界', '🎉', 'Upper', '-lead', '']) {
      const res = await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name }) });
      expect(res.status, name).toBe(422);
      expect(res.body).toMatchObject({ error: { fields: { name: expect.any(String) } } });
    }
    const valueAt = 'v'.repeat(LIMITS.mcp.headers.valueChars);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h1', headers: { A: valueAt } }) })).status).toBe(201);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h2', headers: { A: `${valueAt}v` } }) })).status).toBe(422);
    // A header value is sent as bytes: CJK, emoji or a pasted "…" could never be sent, so they must not be saved
    // (they used to be, and every connection then failed on "Cannot convert argument to a ByteString").
    for (const [i, value] of ['世'.repeat(LIMITS.mcp.headers.valueChars), 'Bearer 🎉', 'Bearer …', 'caf\u00e9'].entries()) {
      const res = await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: `h3-${i}`, headers: { A: value } }) });
      expect(res.status, `value ${i}`).toBe(422);
      expect(res.body).toMatchObject({ error: { fields: { 'headers.A': expect.stringContaining('ASCII') } } });
    }
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h3', headers: { A: 'Bearer ~!#$%&*+-.^_|=/ 0aZ' } }) })).status).toBe(201);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h4', headers: { A: 'line\nbreak' } }) })).status).toBe(422);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h5', url: 'https://user:pw@x.example.test/' }) })).status).toBe(422);
    expect((await call(createOwn, { method: 'POST', headers: ann.auth, body: httpBody({ name: 'h6', url: 'file:///etc/passwd' }) })).status).toBe(422);
  });
});

describe('deployment-wide servers (admin)', () => {
  it('are hidden from members (404) and readable by members only by name through their own list', async () => {
    const admin = await makeAccount('admin', 'admin');
    const member = await makeAccount('member', 'member');
    const created = await call(adminCreate, { method: 'POST', headers: admin.auth, body: { transport: 'stdio', name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { API_KEY: 'SECRET-env' } } });
    expect(created.status, created.raw).toBe(201);
    expect(created.body).toMatchObject({ transport: 'stdio', ownerId: null, envNames: ['API_KEY'], command: process.execPath });
    expect(created.raw).not.toContain('SECRET');
    const id = (created.body as { id: string }).id;
    for (const res of [
      await call(adminList, { headers: member.auth }),
      await call(adminGet, { headers: member.auth, params: { id } }),
      await call(adminPatch, { method: 'PATCH', headers: member.auth, params: { id }, body: { name: 'x' } }),
      await call(adminDelete, { method: 'DELETE', headers: member.auth, params: { id } }),
      await call(adminTools, { headers: member.auth, params: { id } }),
      await call(adminCreate, { method: 'POST', headers: member.auth, body: { transport: 'stdio', name: 'x', command: '/bin/sh' } }),
    ]) {
      expect(res.status).toBe(404);
    }
    // A member sees it by name in their list, without the command, and can't edit it through the account routes.
    const listed = await call(listOwn, { headers: member.auth });
    expect(listed.body).toMatchObject({ servers: [], deploymentWide: [{ id, name: 'everything', transport: 'stdio' }] });
    expect(listed.raw).not.toContain(EVERYTHING);
    expect((await call(patchOne, { method: 'PATCH', headers: member.auth, params: { id }, body: { name: 'mine' } })).status).toBe(404);
    expect((await call(deleteOne, { method: 'DELETE', headers: member.auth, params: { id } })).status).toBe(404);
    expect((await usableMcpServers(member.id)).map((s) => s.id)).toEqual([id]);
  });

  it('a member may list the tools of a deployment-wide stdio server (started on first use)', async () => {
    const admin = await makeAccount('admin', 'admin');
    const member = await makeAccount('member', 'member');
    const created = await call(adminCreate, { method: 'POST', headers: admin.auth, body: { transport: 'stdio', name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] } });
    const id = (created.body as { id: string }).id;
    const res = await call(toolsOf, { headers: member.auth, params: { id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'connected', tools: expect.arrayContaining([expect.objectContaining({ name: 'echo' })]) });
    expect(mcpOrigin({ name: 'everything' }, 'echo')).toBe('mcp:everything/echo');
    const again = await call(adminTools, { headers: admin.auth, params: { id }, url: 'http://localhost/x?refresh=1' });
    expect(again.body).toMatchObject({ status: 'connected' });
  });

  it('reports an unreachable server as status error with when it was checked, not as a failed request', async () => {
    const admin = await makeAccount('admin', 'admin');
    const created = await call(adminCreate, { method: 'POST', headers: admin.auth, body: { transport: 'stdio', name: 'broken', command: '/nonexistent/mcp-server' } });
    const res = await call(adminTools, { headers: admin.auth, params: { id: (created.body as { id: string }).id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'error', tools: [], checkedAt: expect.any(String), error: expect.stringContaining('broken') });
  });
});
