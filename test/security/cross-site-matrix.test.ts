import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { createConversation } from '@/server/agents/conversations';
import { createApiToken } from '@/server/auth/tokens';
import { createInvitation } from '@/server/auth/invitations';
import { uploadFile } from '@/server/files/upload';
import { createDeploymentMcpServer, createOwnMcpServer } from '@/server/mcp/store';
import { createProvider } from '@/server/providers/store';
import { createPersonEntry } from '@/server/teams/person-state';
import { createBatch } from '@/server/batches/store';
import { getDb, schema } from '@/server/db';
import { eq } from 'drizzle-orm';
import { createSkill } from '@/server/skills/skills';
import {
  agentFor,
  apiRoutes,
  callRoute,
  conversationWithRun,
  cookieFor,
  databaseFingerprint,
  notAllowedRoutes,
  ORIGIN,
  PASSWORD,
  settleRuns,
  teamWithJob,
  type Method,
  type Owner,
  type RouteKey,
} from './support';

/**
 * Cross-site matrix: every write route under app/api/v1 (walked from the tree), called with ann's session cookie
 * on ann's own fresh things. What must not happen: a write that succeeds — or changes anything — when it comes with
 * a foreign Origin, with neither Origin nor Sec-Fetch-Site, or with a text/plain body (what an HTML form or a
 * no-cors fetch on another site can send). Each is 403 cross_site with both databases unchanged; then the same
 * call from the app's own origin gets its normal answer.
 */
type Prepared = { params?: Record<string, string>; body?: unknown; cookie?: string; ok: number[] };
type Ctx = { ann: Owner; cookie: string };
const key = () => crypto.randomUUID();
/** A fresh provider; port 9 refuses at once, so "Test connection" answers its normal 200 { ok: false } quickly. */
/** A fresh batch of ann's (no scheduler runs here: it stays queued). */
const annBatch = async (ownerId: string) =>
  (await createBatch(ownerId, { target: { agentId: (await agentFor(ownerId)).id }, template: '{{v}}', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 }, { origin: 'person' })).batch;
/** A fresh skill of ann's. */
const annSkill = (ownerId: string) => createSkill(ownerId, { name: `xs-${key().slice(0, 8)}`, description: 'd', body: 'b' });
const provider = () => createProvider({ kind: 'openai', slug: `xs-${key().slice(0, 8)}`, name: 'Cross-site lab', baseUrl: 'http://127.0.0.1:9/v1' });
/** A fresh MCP server of ann's, and a fresh deployment-wide one (the admin routes'). */
const mcpServer = (ownerId: string) => createOwnMcpServer(ownerId, { transport: 'http', name: `xs-${key().slice(0, 8)}`, url: 'https://mcp.example.test/mcp' });
const mcpDeployment = () => createDeploymentMcpServer({ transport: 'http', name: `xs-${key().slice(0, 8)}`, url: 'https://mcp.example.test/mcp' });

const WRITES: Record<RouteKey, (c: Ctx) => Prepared | Promise<Prepared>> = {
  // A JSON body is not a ZIP: 415 from the app's own origin, 403 from anywhere else, before the body is read.
  'POST /skills/import': () => ({ body: { x: 1 }, ok: [415] }),
  'POST /skills': () => ({ body: { name: `xs-${key().slice(0, 8)}`, description: 'd', body: 'b' }, ok: [201] }),
  'PATCH /skills/[id]': async (c) => ({ params: { id: (await annSkill(c.ann.id)).id }, body: { body: 'changed' }, ok: [200] }),
  'DELETE /skills/[id]': async (c) => ({ params: { id: (await annSkill(c.ann.id)).id }, ok: [204] }),
  'POST /admin/invitations': () => ({ body: { expiresInDays: 7 }, ok: [201] }),
  'DELETE /admin/invitations/[id]': async (c) => ({ params: { id: (await createInvitation(c.ann.id, { expiresInDays: 7 })).id }, ok: [204] }),
  'POST /admin/users': () => ({ body: { email: `new-${key().slice(0, 8)}@example.test`, password: 'long enough pw' }, ok: [201] }),
  'POST /admin/users/[id]/disable': async () => ({ params: { id: (await makeUser('member')).id }, ok: [200] }),
  'POST /admin/users/[id]/enable': async () => ({ params: { id: (await makeUser('member')).id }, ok: [200] }),
  'PUT /admin/prices': () => ({ body: { model: `xs-${key().slice(0, 8)}:m`, inputPerMillion: '1.5', outputPerMillion: null }, ok: [200] }),
  'POST /admin/providers': () => ({ body: { kind: 'openai', slug: `xs-${key().slice(0, 8)}`, name: 'Made here', baseUrl: 'http://127.0.0.1:9/v1' }, ok: [201] }),
  'PATCH /admin/providers/[id]': async () => ({ params: { id: (await provider()).id }, body: { name: 'Renamed' }, ok: [200] }),
  'DELETE /admin/providers/[id]': async () => ({ params: { id: (await provider()).id }, ok: [204] }),
  'POST /admin/providers/[id]/test': async () => ({ params: { id: (await provider()).id }, ok: [200] }),
  'POST /admin/mcp/servers': () => ({ body: { transport: 'stdio', name: `xs-${key().slice(0, 8)}`, command: '/bin/true' }, ok: [201] }),
  'PATCH /admin/mcp/servers/[id]': async () => ({ params: { id: (await mcpDeployment()).id }, body: { timeoutMs: 5_000 }, ok: [200] }),
  'DELETE /admin/mcp/servers/[id]': async () => ({ params: { id: (await mcpDeployment()).id }, ok: [204] }),
  'POST /mcp/servers': () => ({ body: { transport: 'http', name: `xs-${key().slice(0, 8)}`, url: 'https://mcp.example.test/mcp' }, ok: [201] }),
  'PATCH /mcp/servers/[id]': async (c) => ({ params: { id: (await mcpServer(c.ann.id)).id }, body: { timeoutMs: 5_000 }, ok: [200] }),
  'DELETE /mcp/servers/[id]': async (c) => ({ params: { id: (await mcpServer(c.ann.id)).id }, ok: [204] }),
  'POST /agents': () => ({ body: { name: 'Made here' }, ok: [201] }),
  'PATCH /agents/[id]': async (c) => ({ params: { id: (await agentFor(c.ann.id)).id }, body: { name: 'Renamed' }, ok: [200] }),
  'DELETE /agents/[id]': async (c) => ({ params: { id: (await agentFor(c.ann.id)).id }, ok: [204] }),
  'POST /conversations': async (c) => ({ body: { agentId: (await agentFor(c.ann.id)).id }, ok: [201] }),
  'DELETE /conversations/[id]': async (c) => ({ params: { id: (await createConversation(c.ann.id, (await agentFor(c.ann.id)).id)).id }, ok: [204] }),
  'POST /conversations/[id]/mentions': async (c) => {
    const { team } = await makeTeam(c.ann.id);
    const conversation = await createConversation(c.ann.id, (await agentFor(c.ann.id)).id);
    return { params: { id: conversation.id }, body: { memberIds: [team.members[0]!.id], text: 'hi', messageKey: key() }, ok: [201] };
  },
  'POST /conversations/[id]/messages': async (c) => ({
    params: { id: (await createConversation(c.ann.id, (await agentFor(c.ann.id)).id)).id },
    body: { text: 'hello' },
    ok: [202],
  }),
  // Nothing is waiting for an answer, so the normal answer is 409 not-waiting: it got past the cross-site check.
  'POST /conversations/[id]/resume': async (c) => ({
    params: { id: (await conversationWithRun(c.ann.id)).conversation.id },
    body: { value: { approved: true }, idempotencyKey: key() },
    ok: [409],
  }),
  'POST /me/password': async () => {
    const owner = await makeUser('pw');
    return { cookie: await cookieFor(owner), body: { currentPassword: PASSWORD, newPassword: 'another long passphrase' }, ok: [204] };
  },
  'POST /batches': async (c) => ({
    body: { target: { agentId: (await agentFor(c.ann.id)).id }, template: '{{v}}', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 },
    ok: [201],
  }),
  'POST /batches/[id]/cancel': async (c) => ({ params: { id: (await annBatch(c.ann.id)).id }, ok: [200] }),
  'POST /batches/[id]/retry-failed': async (c) => ({ params: { id: (await annBatch(c.ann.id)).id }, ok: [200] }),
  // A running batch is not cancelled, so the normal answer is 409.
  'POST /batches/[id]/retry-cancelled': async (c) => ({ params: { id: (await annBatch(c.ann.id)).id }, ok: [409] }),
  // The queued item is not waiting for an answer, so the normal answer is 409.
  'POST /batches/[id]/items/[itemId]/answer': async (c) => {
    const batch = await annBatch(c.ann.id);
    const [item] = await getDb().select({ id: schema.batchItems.id }).from(schema.batchItems).where(eq(schema.batchItems.batchId, batch.id));
    return { params: { id: batch.id, itemId: item!.id }, body: { response: { approved: true }, answerKey: key() }, ok: [409] };
  },
  'POST /runs/[id]/cancel': async (c) => ({ params: { id: (await conversationWithRun(c.ann.id)).run.id }, ok: [200] }),
  'POST /teams': async (c) => ({
    body: { requestId: key(), name: 'New team', goal: 'g', agentIds: [(await agentFor(c.ann.id)).id, (await agentFor(c.ann.id)).id] },
    ok: [201],
  }),
  'DELETE /teams/[id]': async (c) => ({ params: { id: (await makeTeam(c.ann.id)).team.id }, ok: [204] }),
  'PATCH /teams/[id]': async (c) => ({
    params: { id: (await makeTeam(c.ann.id)).team.id },
    body: { tokenBudget: 5_000, name: 'Renamed', goal: 'New goal' },
    ok: [200],
  }),
  'POST /teams/[id]/clone': async (c) => ({ params: { id: (await makeTeam(c.ann.id)).team.id }, body: { requestId: key() }, ok: [201] }),
  'POST /teams/[id]/jobs/[jobId]/cancel': async (c) => {
    const { team, jobId } = await teamWithJob(c.ann.id);
    return { params: { id: team.id, jobId }, ok: [200] };
  },
  // The queued job is not waiting for input, so the normal answer is 409.
  'POST /teams/[id]/jobs/[jobId]/respond': async (c) => {
    const { team, jobId } = await teamWithJob(c.ann.id);
    return { params: { id: team.id, jobId }, body: { answer: 'yes', answerKey: key() }, ok: [409] };
  },
  // The queued job is not failed or cancelled, so the normal answer is 409 not_retryable.
  'POST /teams/[id]/jobs/[jobId]/retry': async (c) => {
    const { team, jobId } = await teamWithJob(c.ann.id);
    return { params: { id: team.id, jobId }, body: { requestId: key() }, ok: [409] };
  },
  'POST /teams/[id]/cancel-all': async (c) => ({ params: { id: (await teamWithJob(c.ann.id)).team.id }, ok: [200] }),
  'POST /teams/[id]/reconnect': async (c) => ({ params: { id: (await makeTeam(c.ann.id)).team.id }, ok: [200] }),
  'POST /teams/[id]/requests': async (c) => {
    const { team } = await makeTeam(c.ann.id);
    return { params: { id: team.id }, body: { memberIds: [team.members[0]!.id], text: 'do it', draftKey: key() }, ok: [201] };
  },
  'POST /teams/[id]/state': async (c) => ({
    params: { id: (await makeTeam(c.ann.id)).team.id },
    body: { requestId: key(), kind: 'plan', title: 'From the browser', content: '' },
    ok: [201],
  }),
  'PATCH /teams/[id]/state/[entryId]': async (c) => {
    const { team } = await makeTeam(c.ann.id);
    const { entry } = await createPersonEntry(c.ann.id, team.id, { requestId: key(), kind: 'plan', title: 'Mine', content: '' });
    return { params: { id: team.id, entryId: entry.id }, body: { expectedRevision: 1, status: 'archived' }, ok: [200] };
  },
  'POST /tokens': () => ({ body: { name: 'from the browser', password: PASSWORD }, ok: [201] }),
  // No ?name= here (the matrix sends JSON and no query): past the cross-site check the missing name is refused, nothing stored.
  'POST /conversations/[id]/files': async (c) => ({ params: { id: (await createConversation(c.ann.id, (await agentFor(c.ann.id)).id)).id }, body: { x: 1 }, ok: [422] }),
  'POST /teams/[id]/files': async (c) => ({ params: { id: (await makeTeam(c.ann.id)).team.id }, body: { x: 1 }, ok: [422] }),
  'DELETE /files/[fileId]': async (c) => ({
    params: { fileId: (await uploadFile(c.ann.id, { kind: 'conversation', id: (await createConversation(c.ann.id, (await agentFor(c.ann.id)).id)).id }, 'x.txt', new Blob(['x']).stream(), null)).id },
    ok: [204],
  }),
  'DELETE /tokens/[id]': async (c) => ({ params: { id: (await createApiToken(c.ann.id, 'old')).info.id }, ok: [204] }),
};

/** What another site can make a browser send with the cookie; `json` is the Content-Type a body comes with. */
const attacks = (json: Record<string, string>): Array<[string, Record<string, string>]> => [
  ['foreign Origin', { origin: 'https://evil.example', ...json }],
  ['foreign Origin, same-site fetch metadata', { origin: 'http://evil.localhost', 'sec-fetch-site': 'same-site', ...json }],
  ['no Origin and no Sec-Fetch-Site', { ...json }],
  ['no Origin, Sec-Fetch-Site cross-site', { 'sec-fetch-site': 'cross-site', ...json }],
  ['text/plain from the same origin', { origin: ORIGIN, 'content-type': 'text/plain;charset=UTF-8' }],
  ['form-encoded from the same origin', { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }],
];

const WRITE_METHODS: Method[] = ['POST', 'PUT', 'PATCH', 'DELETE'];
const writeRoutes = () => apiRoutes().filter((r) => WRITE_METHODS.includes(r.method));

describe('cross-site matrix over every cookie-authenticated write in app/api/v1', () => {
  const ctx = {} as Ctx;
  beforeAll(async () => {
    ctx.ann = await makeUser('ann'); // the first account: the admin, so admin writes are in the matrix too
    ctx.cookie = await cookieFor(ctx.ann);
  });

  it('has a case for every write route in the tree, and none for a route that is gone', () => {
    const walked = writeRoutes().map((r) => r.key);
    expect(walked.filter((k) => !(k in WRITES)), 'write routes without a case').toEqual([]);
    expect(Object.keys(WRITES).filter((k) => !walked.includes(k as RouteKey)), 'cases without a route').toEqual([]);
  });

  for (const { key: routeKey, method, route, file } of writeRoutes()) {
    const prepare = WRITES[routeKey];
    if (!prepare) continue;
    it(`${routeKey}: foreign Origin, no Origin, text/plain → 403 and nothing written; same-origin JSON works`, async () => {
      const prepared = await prepare(ctx);
      await settleRuns();
      const cookie = prepared.cookie ?? ctx.cookie;
      const hasBody = prepared.body !== undefined;
      const call = (headers: Record<string, string>) =>
        callRoute({ method, route, file, params: prepared.params, body: prepared.body, headers: { cookie, ...headers } });
      const json: Record<string, string> = hasBody ? { 'content-type': 'application/json' } : {};

      const before = await databaseFingerprint();
      for (const [what, headers] of attacks(json)) {
        const res = await call(headers);
        expect(res.status, what).toBe(403);
        expect(res.body.error?.code, what).toBe('cross_site');
      }
      expect(await databaseFingerprint()).toBe(before);

      const sameOrigin = await call({ origin: ORIGIN, ...json });
      expect(prepared.ok, JSON.stringify(sameOrigin.body)).toContain(sameOrigin.status);
      await settleRuns();
    });
  }

  // A write method a route does not take answers 405 (server/http/method-not-allowed.ts), but only after the route's
  // gate, which refuses a cross-site cookie write first: the refusal has no exception, and the 405 never tells
  // another site which methods a path takes. ann is the admin, so admin paths answer her 405 too.
  it('a cookie write to a method a route does not take, from another site: 403 cross_site like any write, nothing written', async () => {
    const writes = notAllowedRoutes().filter((r) => WRITE_METHODS.includes(r.method));
    expect(writes.length).toBeGreaterThan(50);
    const before = await databaseFingerprint();
    for (const { key: routeKey, method, route, file, takes } of writes) {
      const params = Object.fromEntries([...route.matchAll(/\[(\w+)\]/g)].map(([, name]) => [name!, crypto.randomUUID()]));
      const call = (headers: Record<string, string>) =>
        callRoute({ kind: '405', method, route, file, params, body: { name: 'Sent anyway' }, headers: { cookie: ctx.cookie, ...headers } });
      for (const [what, headers] of attacks({ 'content-type': 'application/json' })) {
        const res = await call(headers);
        expect([res.status, res.body.error?.code, res.headers.get('allow')], `${routeKey}: ${what}`).toEqual([403, 'cross_site', null]);
      }
      const sameOrigin = await call({ origin: ORIGIN, 'content-type': 'application/json' });
      expect([sameOrigin.status, sameOrigin.body.error?.code], routeKey).toEqual([405, 'method_not_allowed']);
      expect(sameOrigin.headers.get('allow'), routeKey).toContain(takes[0]);
    }
    expect(await databaseFingerprint()).toBe(before);
  });

  it('Sec-Fetch-Site: same-origin without Origin is accepted (a browser that omits Origin)', async () => {
    const agents = writeRoutes().find((r) => r.key === 'POST /agents')!;
    const res = await callRoute({
      ...agents,
      body: { name: 'Fetch metadata' },
      headers: { cookie: ctx.cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
  });

  it('Bearer-token calls are unaffected: no Origin, a foreign one, or text/plain all work', async () => {
    const agents = writeRoutes().find((r) => r.key === 'POST /agents')!;
    const variants: Array<Record<string, string>> = [{}, { origin: 'https://evil.example' }, { 'content-type': 'text/plain' }];
    for (const headers of variants) {
      const res = await callRoute({ ...agents, body: { name: `By token ${key()}` }, headers: { ...ctx.ann.auth, ...headers } });
      expect(res.status, JSON.stringify(headers)).toBe(201);
    }
  });

  it('reads with the cookie are not refused from anywhere (GET has no effect to forge)', async () => {
    const me = apiRoutes().find((r) => r.key === 'GET /me')!;
    const res = await callRoute({ ...me, headers: { cookie: ctx.cookie, origin: 'https://evil.example' } });
    expect(res.status).toBe(200);
  });
});
