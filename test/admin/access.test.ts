import '../auth/support/next-auth';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { allowOf } from '@/server/http/method-not-allowed';
import { adminStateSnapshot, makeAccount } from './helpers';

/**
 * Only admins reach the admin routes and actions. A member (or a disabled admin) gets exactly the 404 a missing
 * resource gets, and nothing changes; a signed-out caller gets the usual 401. The route list is walked from
 * app/api/v1/admin itself, so a new admin route is covered (or fails here) without anyone remembering to add it.
 */
const scope = vi.hoisted(() => ({ headers: new Headers() }));
vi.mock('next/headers', () => ({ headers: async () => scope.headers, cookies: async () => ({ get: () => undefined }) }));
// No session cookie in these tests: next-auth's request-scoped auth() sees nobody (its cookie path is tested in
// disable.test.ts over next-auth's real HTTP handlers).
vi.mock('@/server/auth/config', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@/server/auth/config')>()),
  auth: async () => null,
}));
afterEach(() => {
  scope.headers = new Headers();
});

const { createInvitation } = await import('@/server/auth/invitations');
const { setAccountDisabled } = await import('@/server/admin/accounts');
const { createProvider } = await import('@/server/providers/store');
const { createDeploymentMcpServer } = await import('@/server/mcp/store');
const actions = await import('@/app/(app)/admin/actions');

const ADMIN_API = path.resolve(__dirname, '../../app/api/v1/admin');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Every route.ts under app/api/v1/admin with its URL pattern ("/api/v1/admin/users/[id]/disable"). */
function adminRouteFiles(dir = ADMIN_API): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return adminRouteFiles(full);
    return entry.name === 'route.ts' ? [full] : [];
  });
}

/** Plausible, valid input for each route, so only the role can be what refuses it. */
async function fixtures() {
  const admin = await makeAccount('admin', 'admin');
  const member = await makeAccount('member', 'member');
  const victim = await makeAccount('victim', 'member');
  const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
  // Two providers: DELETE /providers/[id] runs before POST /providers/[id]/test in the walk. Port 9 refuses at once.
  const provider = await createProvider({ kind: 'openai', slug: `p-${crypto.randomUUID().slice(0, 6)}`, name: 'P', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-access-1' });
  const tested = await createProvider({ kind: 'ollama', slug: `t-${crypto.randomUUID().slice(0, 6)}`, name: 'T', baseUrl: 'http://127.0.0.1:9' });
  // Two MCP servers likewise: DELETE /mcp/servers/[id] runs before GET /mcp/servers/[id]/tools and …/agents. Port 9 is refused at once.
  const mcp = await createDeploymentMcpServer({ transport: 'http', name: `m-${crypto.randomUUID().slice(0, 6)}`, url: 'http://127.0.0.1:9/mcp' });
  const mcpTools = await createDeploymentMcpServer({ transport: 'http', name: `t-${crypto.randomUUID().slice(0, 6)}`, url: 'http://127.0.0.1:9/mcp' });
  const params = (pattern: string): Record<string, string> => {
    if (pattern.endsWith('/mcp/servers/[id]/tools') || pattern.endsWith('/mcp/servers/[id]/agents')) return { id: mcpTools.id };
    if (pattern.includes('/mcp/servers/[id]')) return { id: mcp.id };
    if (pattern.includes('/users/[id]')) return { id: victim.id };
    if (pattern.includes('/invitations/[id]')) return { id: invitation.id };
    if (pattern.endsWith('/providers/[id]/test')) return { id: tested.id };
    if (pattern.includes('/providers/[id]')) return { id: provider.id };
    return {};
  };
  const bodies: Record<string, unknown> = {
    'POST /api/v1/admin/users': { email: `new-${crypto.randomUUID().slice(0, 6)}@example.test`, password: 'long enough', role: 'admin' },
    'POST /api/v1/admin/invitations': { expiresInDays: 30 },
    'POST /api/v1/admin/providers': { kind: 'openai', slug: `n-${crypto.randomUUID().slice(0, 6)}`, name: 'New', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-new' },
    'PATCH /api/v1/admin/providers/[id]': { name: 'Renamed', apiKey: 'sk-changed' },
    'PUT /api/v1/admin/prices': { model: 'scripted', inputPerMillion: '0', outputPerMillion: '0' },
    'POST /api/v1/admin/mcp/servers': { transport: 'stdio', name: `n-${crypto.randomUUID().slice(0, 6)}`, command: '/bin/true', env: { TOKEN: 'secret' } },
    'PATCH /api/v1/admin/mcp/servers/[id]': { name: 'renamed', headers: { Authorization: 'Bearer changed' } },
  };
  return { admin, member, victim, invitation, params, bodies };
}

/**
 * Every admin route and method its own handler answers; with `with405`, also the methods a route does not take (their
 * 405, server/http/method-not-allowed.ts, runs requireAdmin first, so it must refuse exactly as the route does).
 */
async function routes({ with405 = false } = {}) {
  const found: { pattern: string; method: string; handler: Handler }[] = [];
  for (const file of adminRouteFiles()) {
    const pattern = `/api/v1/admin${path.dirname(path.relative(ADMIN_API, file)).replace(/^\.$/, '').replace(/^/, '/').replace(/\/$/, '')}`;
    const mod = (await import(file)) as Partial<Record<string, Handler>>;
    for (const method of METHODS) {
      const handler = mod[method];
      if (handler && (with405 || allowOf(handler) === null)) found.push({ pattern, method, handler });
    }
  }
  return found;
}

const call = (handler: Handler, method: string, pattern: string, params: Record<string, string>, headers: Record<string, string>, body?: unknown) => {
  const url = `http://localhost${pattern.replace(/\[(\w+)\]/g, (_, key: string) => params[key] ?? 'x')}`;
  const init: RequestInit = { method, headers: { 'content-type': 'application/json', ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  return handler(new Request(url, init), { params: Promise.resolve(params) });
};

describe('admin API routes', () => {
  it('the walk finds every documented admin route', async () => {
    expect((await routes()).map((r) => `${r.method} ${r.pattern}`).sort()).toEqual([
      'DELETE /api/v1/admin/invitations/[id]',
      'DELETE /api/v1/admin/mcp/servers/[id]',
      'DELETE /api/v1/admin/providers/[id]',
      'GET /api/v1/admin/invitations',
      'GET /api/v1/admin/mcp/servers',
      'GET /api/v1/admin/mcp/servers/[id]',
      'GET /api/v1/admin/mcp/servers/[id]/agents',
      'GET /api/v1/admin/mcp/servers/[id]/tools',
      'GET /api/v1/admin/prices',
      'GET /api/v1/admin/providers',
      'GET /api/v1/admin/providers/[id]',
      'GET /api/v1/admin/users',
      'PATCH /api/v1/admin/mcp/servers/[id]',
      'PATCH /api/v1/admin/providers/[id]',
      'POST /api/v1/admin/invitations',
      'POST /api/v1/admin/mcp/servers',
      'POST /api/v1/admin/providers',
      'POST /api/v1/admin/providers/[id]/test',
      'POST /api/v1/admin/users',
      'POST /api/v1/admin/users/[id]/disable',
      'POST /api/v1/admin/users/[id]/enable',
      'PUT /api/v1/admin/prices',
    ]);
  });

  it('a member gets 404 not_found from every route and method (those a route does not take too), and nothing changes', async () => {
    const { member, params, bodies } = await fixtures();
    for (const { pattern, method, handler } of await routes({ with405: true })) {
      const before = await adminStateSnapshot();
      const res = await call(handler, method, pattern, params(pattern), member.auth, bodies[`${method} ${pattern}`]);
      expect(res.status, `${method} ${pattern}`).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
      expect(await adminStateSnapshot(), `${method} ${pattern} changed state`).toBe(before);
    }
  });

  it('a disabled admin is signed out (401) everywhere, and nothing changes', async () => {
    const { params, bodies } = await fixtures();
    const other = await makeAccount('admin2', 'admin');
    const disabled = await makeAccount('old-admin', 'admin');
    await setAccountDisabled(other.id, disabled.id, true);
    for (const { pattern, method, handler } of await routes({ with405: true })) {
      const before = await adminStateSnapshot();
      const res = await call(handler, method, pattern, params(pattern), disabled.auth, bodies[`${method} ${pattern}`]);
      expect(res.status, `${method} ${pattern}`).toBe(401);
      expect(await adminStateSnapshot()).toBe(before);
    }
  });

  it('without credentials every route answers 401', async () => {
    const { params, bodies } = await fixtures();
    for (const { pattern, method, handler } of await routes({ with405: true })) {
      const res = await call(handler, method, pattern, params(pattern), {}, bodies[`${method} ${pattern}`]);
      expect(res.status, `${method} ${pattern}`).toBe(401);
    }
  });

  it('an admin gets past the role check on every route with the same input (the refusal above was the role)', async () => {
    const { admin, params, bodies } = await fixtures();
    for (const { pattern, method, handler } of await routes()) {
      const res = await call(handler, method, pattern, params(pattern), admin.auth, bodies[`${method} ${pattern}`]);
      expect(res.status, `${method} ${pattern}`).toBeLessThan(300);
    }
  });
});

describe('admin server actions', () => {
  type Action = (...args: unknown[]) => Promise<{ ok: boolean; error?: unknown }>;

  /** Valid arguments for every exported action; an action added without a case here fails the first test. */
  function argsFor(f: Awaited<ReturnType<typeof fixtures>>): Record<string, unknown[]> {
    return {
      createAccountAction: [{ email: `new-${crypto.randomUUID().slice(0, 6)}@example.test`, password: 'long enough' }],
      createInvitationAction: [{ expiresInDays: 1, note: 'for Bo' }],
      revokeInvitationAction: [f.invitation.id],
      disableAccountAction: [f.victim.id],
      enableAccountAction: [f.victim.id],
    };
  }

  it('a member gets the not_found answer from every action, and nothing changes', async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    expect(Object.keys(actions).sort()).toEqual(Object.keys(cases).sort());
    scope.headers = new Headers(f.member.auth);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      const before = await adminStateSnapshot();
      expect(await action(...cases[name]!), name).toEqual({ ok: false, error: { code: 'not_found', message: 'Resource not found' } });
      expect(await adminStateSnapshot(), `${name} changed state`).toBe(before);
    }
  });

  it('an admin may use every action with the same arguments', async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    scope.headers = new Headers(f.admin.auth);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      expect(await action(...cases[name]!), name).toMatchObject({ ok: true });
    }
  });

  it('signed out, every action answers unauthorized', async () => {
    const f = await fixtures();
    const cases = argsFor(f);
    for (const [name, action] of Object.entries(actions) as [string, Action][]) {
      expect(await action(...cases[name]!), name).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    }
  });
});
