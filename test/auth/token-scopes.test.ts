import crypto from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { GET as listRoute, POST as createRoute } from '@/app/api/v1/tokens/route';
import { GET as meRoute } from '@/app/api/v1/me/route';
import type { CreatedApiToken } from '@/lib/types/api-token';
import { createApiToken } from '@/server/auth/tokens';
import { createUser } from '@/server/auth/users';
import { getDb, schema, writeTx } from '@/server/db';
import { makeTeam } from '../support/teams';

/**
 * Token scopes (ADR 041): a read-only token reads, and must not create, change or delete anything through any API
 * route. Every route file under app/api/v1 is loaded, so a route added later is covered without editing this test.
 */

const PASSWORD = 'correct horse battery';
const routes = import.meta.glob<Record<string, unknown>>('/app/api/v1/**/route.ts');
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});

/** An admin (so admin routes would act for it) with a team, a read-only token and a full one. */
async function owner() {
  const email = `ro-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const user = await createUser({ email, password: PASSWORD, name: 'Ro' }, { role: 'admin' });
  const read = await createApiToken(user.id, 'reader', { scope: 'read' });
  const full = await createApiToken(user.id, 'writer', { scope: 'full' });
  const { team, agents } = await makeTeam(user.id);
  return { user, team, agents, read, full, readAuth: { authorization: `Bearer ${read.token}` }, fullAuth: { authorization: `Bearer ${full.token}` } };
}

/** Everything a write could change, except the moment a token was last used (using one moves it). */
async function snapshot(): Promise<string> {
  const db = getDb();
  const t = schema.apiTokens;
  const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();
  return JSON.stringify({
    users: sorted(await db.select().from(schema.users)),
    invitations: sorted(await db.select().from(schema.invitations)),
    tokens: sorted(await db.select({ id: t.id, revokedAt: t.revokedAt, scope: t.scope, name: t.name }).from(t)),
    agents: sorted(await db.select().from(schema.agents)),
    conversations: sorted(await db.select().from(schema.conversations)),
    runs: sorted(await db.select().from(schema.runs)),
    teams: sorted(await db.select().from(schema.teams)),
    members: sorted(await db.select().from(schema.teamMembers)),
    jobs: sorted(await db.select().from(schema.jobs)),
    state: sorted(await db.select().from(schema.stateEntries)),
    messages: sorted(await db.select().from(schema.sharedMessages)),
  });
}

const call = (handler: unknown, method: string, path: string, auth: Record<string, string>, params: Record<string, string>, body?: unknown) =>
  (handler as (req: Request, ctx: unknown) => Promise<Response>)(
    new Request(`http://localhost${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined || method === 'GET' ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve(params) },
  );

describe('a read-only token', () => {
  it('must not create, change or delete anything through any write of any API route: 403 read_only_token', async () => {
    const ro = await owner();
    const other = await createUser({ email: `other-${crypto.randomUUID().slice(0, 8)}@example.test`, password: PASSWORD, name: 'Other' });
    // Ids of things the caller owns (or, on admin routes, may act on), so each write would really act if let through.
    const idFor = (path: string) =>
      path.includes('/tokens/') ? ro.full.info.id : path.includes('/admin/users/') ? other.id : path.includes('/agents/') ? ro.agents[0]!.id : ro.team.id;
    const before = await snapshot();
    const answered: string[] = [];
    for (const [file, load] of Object.entries(routes)) {
      const mod = await load();
      const path = file.replace(/^\/app/, '').replace(/\/route\.ts$/, '');
      const params = Object.fromEntries([...path.matchAll(/\[(\w+)\]/g)].map(([, name]) => [name!, name === 'id' ? idFor(path) : crypto.randomUUID()]));
      for (const method of WRITE_METHODS) {
        if (typeof mod[method] !== 'function') continue;
        const res = await call(mod[method], method, path, ro.readAuth, params, { name: 'x', password: PASSWORD });
        const body = (await res.json()) as { error?: { code?: string; message?: string } };
        answered.push(`${method} ${path} ${res.status} ${body.error?.code}`);
        expect(`${method} ${path} ${res.status} ${body.error?.code}`).toBe(`${method} ${path} 403 read_only_token`);
        expect(body.error?.message).toMatch(/read-only/);
      }
    }
    // Every write method of every route file was tried (the API has dozens of them).
    expect(answered.length).toBeGreaterThan(40);
    // Must not happen: any row created, changed or deleted by a read-only token.
    expect(await snapshot()).toBe(before);
  });

  it('reads like any token (GET answers 200), while a full token of the same owner still writes', async () => {
    const ro = await owner();
    expect((await meRoute(new Request('http://localhost/api/v1/me', { headers: ro.readAuth }), undefined)).status).toBe(200);
    expect((await listRoute(new Request('http://localhost/api/v1/tokens', { headers: ro.readAuth }), undefined)).status).toBe(200);
    const made = await call(createRoute, 'POST', '/api/v1/tokens', ro.fullAuth, {}, { name: 'another', password: PASSWORD, scope: 'read' });
    expect(made.status).toBe(201);
    expect(((await made.json()) as CreatedApiToken).scope).toBe('read');
  });
});

describe('choosing a scope over the API', () => {
  it("defaults to 'full' (as every token was before scopes), takes 'read', refuses anything else naming the field", async () => {
    const ro = await owner();
    const dflt = await call(createRoute, 'POST', '/api/v1/tokens', ro.fullAuth, {}, { name: 'default', password: PASSWORD });
    expect(((await dflt.json()) as CreatedApiToken).scope).toBe('full');
    const bad = await call(createRoute, 'POST', '/api/v1/tokens', ro.fullAuth, {}, { name: 'bad', password: PASSWORD, scope: 'admin' });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ error: { code: 'validation_error', fields: { scope: 'Choose "read" or "full"' } } });
    const listed = (await (await listRoute(new Request('http://localhost/api/v1/tokens', { headers: ro.fullAuth }), undefined)).json()) as {
      tokens: Array<{ name: string; scope: string }>;
    };
    expect(Object.fromEntries(listed.tokens.map((t) => [t.name, t.scope]))).toEqual({ reader: 'read', writer: 'full', default: 'full' });
  });
});
