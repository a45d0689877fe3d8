import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { uploadFile } from '@/server/files/upload';
import { createDeploymentMcpServer, createOwnMcpServer } from '@/server/mcp/store';
import { createProvider } from '@/server/providers/store';
import { createPersonEntry } from '@/server/teams/person-state';
import { createBatch } from '@/server/batches/store';
import { getDb, schema } from '@/server/db';
import { eq } from 'drizzle-orm';
import { createSkill } from '@/server/skills/skills';
import { agentFor, apiRoutes, callRoute, databaseFingerprint, makeWorld, notAllowedRoutes, type Answer, type RouteKey, type World } from './support';

/**
 * Ownership matrix: every route and method under app/api/v1 (walked from the tree, so a new route without a case
 * fails "every route has a case"), called by a second owner (bob, a member) with the first owner's (ann, the admin)
 * ids. What must not happen: any answer other than 404 (a 403 or 409 would confirm the id exists), or any change to
 * either database. Admin routes called by a member are 404 too. Routes that take no foreign id are listed with
 * the reason, and their lists must not show ann's things.
 */
type Foreign = { params?: Record<string, string>; body?: unknown; query?: string };
/** The world plus a second agent of ann's, for "create a team from ann's agents". */
type MatrixWorld = World & { teamAgentIds: string[]; stateEntryId: string; providerId: string; mcpServerId: string; mcpDeploymentId: string; fileId: string; chatFileId: string; batchId: string; batchItemId: string; skillId: string };
/**
 * `likeMissing`: a foreign id inside the body is a field error (422 naming the field) exactly as an id that never
 * existed gets, rather than a 404 for the whole route; the test compares both answers.
 */
type Case =
  | { foreign: (w: MatrixWorld) => Foreign; likeMissing?: (w: MatrixWorld) => Foreign }
  | { noForeignId: string; hidesFrom?: (w: MatrixWorld) => string[] };

const key = () => crypto.randomUUID();
const CASES: Record<RouteKey, Case> = {
  'GET /admin/invitations': { foreign: () => ({}) },
  'POST /admin/invitations': { foreign: () => ({ body: { expiresInDays: 7 } }) },
  'DELETE /admin/invitations/[id]': { foreign: (w) => ({ params: { id: w.invitationId } }) },
  'GET /admin/users': { foreign: () => ({}) },
  'POST /admin/users': { foreign: () => ({ body: { email: `x-${key().slice(0, 6)}@example.test`, password: 'long enough pw' } }) },
  'POST /admin/users/[id]/disable': { foreign: (w) => ({ params: { id: w.ann.id } }) },
  'POST /admin/users/[id]/enable': { foreign: (w) => ({ params: { id: w.ann.id } }) },
  'GET /admin/prices': { foreign: () => ({}) },
  'PUT /admin/prices': { foreign: () => ({ body: { model: 'scripted', inputPerMillion: '0', outputPerMillion: '0' } }) },
  'GET /admin/providers': { foreign: () => ({}) },
  'POST /admin/providers': { foreign: () => ({ body: { kind: 'openai', slug: `stolen-${key().slice(0, 6)}`, name: 'Stolen', baseUrl: 'http://127.0.0.1:9/v1' } }) },
  'GET /admin/providers/[id]': { foreign: (w) => ({ params: { id: w.providerId } }) },
  'PATCH /admin/providers/[id]': { foreign: (w) => ({ params: { id: w.providerId }, body: { name: 'Taken over' } }) },
  'DELETE /admin/providers/[id]': { foreign: (w) => ({ params: { id: w.providerId } }) },
  'POST /admin/providers/[id]/test': { foreign: (w) => ({ params: { id: w.providerId } }) },
  'GET /admin/mcp/servers': { foreign: () => ({}) },
  'POST /admin/mcp/servers': { foreign: () => ({ body: { transport: 'stdio', name: `stolen-${key().slice(0, 6)}`, command: '/bin/sh' } }) },
  'GET /admin/mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpDeploymentId } }) },
  'PATCH /admin/mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpDeploymentId }, body: { name: 'taken-over' } }) },
  'DELETE /admin/mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpDeploymentId } }) },
  'GET /admin/mcp/servers/[id]/tools': { foreign: (w) => ({ params: { id: w.mcpDeploymentId } }) },
  'GET /admin/mcp/servers/[id]/agents': { foreign: (w) => ({ params: { id: w.mcpDeploymentId } }) },

  'GET /mcp/servers': { noForeignId: "lists the caller's own MCP servers and the deployment's by name", hidesFrom: (w) => [w.mcpServerId] },
  'POST /mcp/servers': { noForeignId: 'creates a server for the caller; the body holds no ids' },
  'GET /mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpServerId } }) },
  'PATCH /mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpServerId }, body: { name: 'taken-over' } }) },
  'DELETE /mcp/servers/[id]': { foreign: (w) => ({ params: { id: w.mcpServerId } }) },
  'GET /mcp/servers/[id]/tools': { foreign: (w) => ({ params: { id: w.mcpServerId } }) },
  'GET /mcp/servers/[id]/agents': { foreign: (w) => ({ params: { id: w.mcpServerId } }) },

  'GET /agents': { noForeignId: "lists the caller's own agents", hidesFrom: (w) => [w.agent.id] },
  'POST /agents': {
    foreign: (w) => ({ body: { name: `Stolen ${key().slice(0, 6)}`, skills: [w.skillId] } }),
    likeMissing: () => ({ body: { name: `Stolen ${key().slice(0, 6)}`, skills: [key()] } }),
  },
  'GET /skills': { noForeignId: "lists the caller's own skills", hidesFrom: (w) => [w.skillId] },
  'POST /skills': { noForeignId: 'creates a skill for the caller; the body holds no ids' },
  'POST /skills/import': { noForeignId: 'imports a skill for the caller from a ZIP; no ids' },
  'GET /skills/[id]': { foreign: (w) => ({ params: { id: w.skillId } }) },
  'PATCH /skills/[id]': { foreign: (w) => ({ params: { id: w.skillId }, body: { body: 'taken over' } }) },
  'DELETE /skills/[id]': { foreign: (w) => ({ params: { id: w.skillId } }) },
  'GET /skills/[id]/files/[...path]': { foreign: (w) => ({ params: { id: w.skillId, path: 'SKILL.md' } }) },
  'GET /agents/[id]': { foreign: (w) => ({ params: { id: w.agent.id } }) },
  'PATCH /agents/[id]': { foreign: (w) => ({ params: { id: w.agent.id }, body: { name: 'Taken over' } }) },
  'DELETE /agents/[id]': { foreign: (w) => ({ params: { id: w.agent.id } }) },

  'GET /conversations': { noForeignId: "lists the caller's own conversations", hidesFrom: (w) => [w.conversation.id] },
  'POST /conversations': { foreign: (w) => ({ body: { agentId: w.agent.id } }) },
  'GET /conversations/[id]': { foreign: (w) => ({ params: { id: w.conversation.id } }) },
  'DELETE /conversations/[id]': { foreign: (w) => ({ params: { id: w.conversation.id } }) },
  'GET /conversations/[id]/events': { foreign: (w) => ({ params: { id: w.conversation.id } }) },
  'GET /conversations/[id]/mentions': { foreign: (w) => ({ params: { id: w.conversation.id } }) },
  'POST /conversations/[id]/mentions': {
    foreign: (w) => ({ params: { id: w.conversation.id }, body: { memberIds: [w.memberId], text: 'hi', messageKey: key() } }),
  },
  'POST /conversations/[id]/messages': { foreign: (w) => ({ params: { id: w.conversation.id }, body: { text: 'hi' } }) },
  'POST /conversations/[id]/resume': {
    foreign: (w) => ({ params: { id: w.conversation.id }, body: { value: { approved: true }, idempotencyKey: key() } }),
  },

  'GET /conversations/[id]/files': { foreign: (w) => ({ params: { id: w.conversation.id } }) },
  'POST /conversations/[id]/files': { foreign: (w) => ({ params: { id: w.conversation.id }, query: '?name=planted.txt', body: 'planted' }) },
  'GET /teams/[id]/files': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'POST /teams/[id]/files': { foreign: (w) => ({ params: { id: w.team.id }, query: '?name=planted.txt', body: 'planted' }) },
  'GET /files/[fileId]': { foreign: (w) => ({ params: { fileId: w.fileId } }) },
  'DELETE /files/[fileId]': { foreign: (w) => ({ params: { fileId: w.chatFileId } }) },
  'GET /files/[fileId]/content': { foreign: (w) => ({ params: { fileId: w.fileId }, query: '?inline=1' }) },
  'GET /files/[fileId]/preview': { foreign: (w) => ({ params: { fileId: w.fileId } }) },
  'GET /files/[fileId]/diff': { foreign: (w) => ({ params: { fileId: w.fileId }, query: '?from=1&to=1' }) },

  'GET /inbox': { noForeignId: "lists what waits for the caller (test/inbox/read.test.ts: another owner sees none of it)" },
  'GET /inbox/events': { noForeignId: "streams changes of the caller's own inbox (test/inbox/stream.test.ts: another owner's are never heard)" },
  'GET /me': { noForeignId: 'answers who the caller is' },
  'GET /models': { noForeignId: 'lists the providers and their models for anyone signed in; no one owns them' },
  'POST /me/password': { noForeignId: "changes the caller's own password" },

  'GET /batches': { noForeignId: "lists the caller's own batches", hidesFrom: (w) => [w.batchId] },
  'POST /batches': {
    foreign: (w) => ({ body: { target: { agentId: w.agent.id }, template: '{{v}}', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 } }),
  },
  'GET /batches/[id]': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'GET /batches/[id]/items': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'GET /batches/[id]/export': { foreign: (w) => ({ params: { id: w.batchId }, query: '?format=jsonl' }) },
  'GET /batches/[id]/events': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'POST /batches/[id]/cancel': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'POST /batches/[id]/retry-failed': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'POST /batches/[id]/retry-cancelled': { foreign: (w) => ({ params: { id: w.batchId } }) },
  'POST /batches/[id]/items/[itemId]/answer': {
    foreign: (w) => ({ params: { id: w.batchId, itemId: w.batchItemId }, body: { response: { approved: true }, answerKey: key() } }),
  },
  'GET /runs/[id]': { foreign: (w) => ({ params: { id: w.run.id } }) },
  'POST /runs/[id]/cancel': { foreign: (w) => ({ params: { id: w.run.id } }) },
  'GET /runs/[id]/events': { foreign: (w) => ({ params: { id: w.run.id }, query: '?after=0&limit=200' }) },
  'GET /runs/[id]/events/stream': { foreign: (w) => ({ params: { id: w.run.id } }) },
  'GET /runs/[id]/receipts': { foreign: (w) => ({ params: { id: w.run.id } }) },
  'GET /runs/[id]/children': { foreign: (w) => ({ params: { id: w.run.id } }) },

  'GET /teams': { noForeignId: "lists the caller's own teams", hidesFrom: (w) => [w.team.id] },
  'GET /teams/events': { noForeignId: "streams changes of the caller's own teams (test/push/team-list-events.test.ts: another owner's are never heard)" },
  'POST /teams': {
    foreign: (w) => ({ body: { requestId: key(), name: 'Stolen', goal: 'g', agentIds: [w.agent.id, ...w.teamAgentIds] } }),
    likeMissing: () => ({ body: { requestId: key(), name: 'Stolen', goal: 'g', agentIds: [key(), key()] } }),
  },
  'GET /teams/[id]': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'DELETE /teams/[id]': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'PATCH /teams/[id]': { foreign: (w) => ({ params: { id: w.team.id }, body: { tokenBudget: 5_000, name: 'Taken over', goal: 'Mine now' } }) },
  'POST /teams/[id]/clone': { foreign: (w) => ({ params: { id: w.team.id }, body: { requestId: key() } }) },
  'GET /teams/[id]/activity': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'GET /teams/[id]/export': { foreign: (w) => ({ params: { id: w.team.id }, query: '?format=json' }) },
  'GET /teams/[id]/events': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'GET /teams/[id]/history': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'GET /teams/[id]/waiting': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'POST /teams/[id]/cancel-all': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'POST /teams/[id]/jobs/[jobId]/retry': { foreign: (w) => ({ params: { id: w.team.id, jobId: w.jobId }, body: { requestId: key(), memberId: w.memberId } }) },
  'POST /teams/[id]/jobs/[jobId]/cancel': { foreign: (w) => ({ params: { id: w.team.id, jobId: w.jobId } }) },
  'POST /teams/[id]/jobs/[jobId]/respond': {
    foreign: (w) => ({ params: { id: w.team.id, jobId: w.jobId }, body: { answer: 'yes', answerKey: key() } }),
  },
  'POST /teams/[id]/reconnect': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'POST /teams/[id]/requests': {
    foreign: (w) => ({ params: { id: w.team.id }, body: { memberIds: [w.memberId], text: 'hi', draftKey: key() } }),
  },
  'GET /teams/[id]/results': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'GET /teams/[id]/runs': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'GET /teams/[id]/results/[jobId]': { foreign: (w) => ({ params: { id: w.team.id, jobId: w.jobId } }) },
  'GET /teams/[id]/state': { foreign: (w) => ({ params: { id: w.team.id } }) },
  'POST /teams/[id]/state': { foreign: (w) => ({ params: { id: w.team.id }, body: { requestId: key(), kind: 'plan', title: 'Planted', content: '' } }) },
  'PATCH /teams/[id]/state/[entryId]': {
    foreign: (w) => ({ params: { id: w.team.id, entryId: w.stateEntryId }, body: { expectedRevision: 1, title: 'Taken over' } }),
  },

  'GET /tokens': { noForeignId: "lists the caller's own tokens", hidesFrom: (w) => [w.tokenId] },
  'POST /tokens': { noForeignId: 'creates a token for the caller; the body holds no ids' },
  'DELETE /tokens/[id]': { foreign: (w) => ({ params: { id: w.tokenId } }) },
};

/** ann's id for a route's `[name]` segment: a new kind of id needs a line here. */
function annsId(w: MatrixWorld, route: string, name: string): string {
  if (name === 'jobId') return w.jobId;
  if (name === 'entryId') return w.stateEntryId;
  if (name === 'fileId') return w.fileId;
  if (name === 'itemId') return w.batchItemId;
  const byFolder: Record<string, string> = {
    agents: w.agent.id,
    batches: w.batchId,
    skills: w.skillId,
    conversations: w.conversation.id,
    runs: w.run.id,
    teams: w.team.id,
    tokens: w.tokenId,
    'admin/invitations': w.invitationId,
    'admin/users': w.ann.id,
    'admin/providers': w.providerId,
    'admin/mcp/servers': w.mcpDeploymentId,
    'mcp/servers': w.mcpServerId,
  };
  const folder = Object.keys(byFolder).find((f) => route.startsWith(`/${f}/[${name}]`));
  if (!folder) throw new Error(`no id of ann's for [${name}] in ${route}`);
  return byFolder[folder]!;
}

/** An answer with the ids the caller sent put back as `[name]`: the message echoes the caller's own path. */
const withoutIds = (res: Answer, params: Record<string, string>) => ({
  status: res.status,
  allow: res.headers.get('allow'),
  body: Object.entries(params).reduce((text, [name, id]) => text.replaceAll(id, `[${name}]`), JSON.stringify(res.body)),
});

describe('ownership matrix over app/api/v1', () => {
  const routes = apiRoutes();
  let world: MatrixWorld;

  beforeAll(async () => {
    const base = await makeWorld();
    const stateEntryId = (await createPersonEntry(base.ann.id, base.team.id, { requestId: key(), kind: 'plan', title: 'Ann plan', content: '' }))
      .entry.id;
    // A provider an admin added (instance-wide, but only admins may read or change it).
    const provider = await createProvider({ kind: 'openai', slug: `ann-${key().slice(0, 6)}`, name: 'Ann lab', baseUrl: 'http://127.0.0.1:9/v1' });
    // ann's own MCP server, and one the deployment offers (an admin's; every account may use it, only admins change it).
    const mcpServer = await createOwnMcpServer(base.ann.id, { transport: 'http', name: 'ann-search', url: 'https://mcp.example.test/mcp' });
    const mcpDeployment = await createDeploymentMcpServer({ transport: 'http', name: 'shared-search', url: 'https://shared.example.test/mcp' });
    // ann's files: one in the team's workspace, one in her chat.
    const fileId = (await uploadFile(base.ann.id, { kind: 'team', id: base.team.id }, 'ann.md', new Blob(['# ann']).stream(), null)).id;
    const chatFileId = (await uploadFile(base.ann.id, { kind: 'conversation', id: base.conversation.id }, 'ann.txt', new Blob(['ann']).stream(), null)).id;
    const batch = (await createBatch(base.ann.id, { target: { agentId: base.agent.id }, template: '{{v}}', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 }, { origin: 'person' })).batch;
    const [batchItem] = await getDb().select({ id: schema.batchItems.id }).from(schema.batchItems).where(eq(schema.batchItems.batchId, batch.id));
    world = { ...base, teamAgentIds: [(await agentFor(base.ann.id)).id], stateEntryId, providerId: provider.id, mcpServerId: mcpServer.id, mcpDeploymentId: mcpDeployment.id, fileId, chatFileId,
      skillId: (await createSkill(base.ann.id, { name: 'Ann skill', description: 'mine', body: 'steps' })).id,
      batchId: batch.id, batchItemId: batchItem!.id };
  });

  it('has a case for every route and method in the tree, and no case for a route that is gone', () => {
    const walked = routes.map((r) => r.key);
    expect(walked.length).toBeGreaterThan(30);
    expect(walked.filter((k) => !(k in CASES)), 'routes without a case').toEqual([]);
    expect(Object.keys(CASES).filter((k) => !walked.includes(k as RouteKey)), 'cases without a route').toEqual([]);
  });

  for (const { key: routeKey, method, route, file } of apiRoutes()) {
    const spec = CASES[routeKey];
    if (!spec) continue; // reported by the test above
    if ('noForeignId' in spec) {
      if (spec.hidesFrom) {
        it(`${routeKey}: no foreign id (${spec.noForeignId}); bob's answer never shows ann's`, async () => {
          const res = await callRoute({ method, route, file, headers: world.bob.auth });
          expect(res.status).toBe(200);
          const text = JSON.stringify(res.body);
          for (const id of spec.hidesFrom!(world)) expect(text).not.toContain(id);
        });
      }
      continue;
    }
    const asBob = (foreign: Foreign) =>
      callRoute({
        method,
        route,
        file,
        params: foreign.params,
        query: foreign.query,
        body: foreign.body,
        headers: { ...world.bob.auth, ...(foreign.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      });
    const expected = spec.likeMissing ? 'the answer a missing id gets' : '404';
    it(`${routeKey}: bob with ann's ids → ${expected}, and nothing changes`, async () => {
      const before = await databaseFingerprint();
      const res = await asBob(spec.foreign(world));
      if (spec.likeMissing) {
        const missing = await asBob(spec.likeMissing(world));
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect([res.status, res.body.error?.code]).toEqual([missing.status, missing.body.error?.code]);
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(404);
        expect(res.body.error?.code).toBe('not_found');
      }
      expect(await databaseFingerprint()).toBe(before);
    });
  }

  // The methods a route does not take answer 405 (server/http/method-not-allowed.ts) without reading the resource: the
  // answer on ann's ids must be the one on ids that never existed (and 404 on admin paths, as bob is a member).
  it("a method a route does not take, on ann's ids, answers bob exactly as on ids that never existed; nothing changes", async () => {
    const withIds = notAllowedRoutes().filter((r) => r.route.includes('['));
    expect(withIds.length).toBeGreaterThan(50);
    const before = await databaseFingerprint();
    for (const { key: routeKey, method, route, file } of withIds) {
      const names = [...route.matchAll(/\[(\w+)\]/g)].map(([, name]) => name!);
      const asBob = (params: Record<string, string>) => callRoute({ kind: '405', method, route, file, params, headers: world.bob.auth });
      const anns = Object.fromEntries(names.map((name) => [name, annsId(world, route, name)]));
      const missing = Object.fromEntries(names.map((name) => [name, crypto.randomUUID()]));
      const foreign = withoutIds(await asBob(anns), anns);
      expect(foreign.status, routeKey).toBe(route.startsWith('/admin/') ? 404 : 405);
      expect(foreign, routeKey).toEqual(withoutIds(await asBob(missing), missing));
    }
    expect(await databaseFingerprint()).toBe(before);
  });

  // docs/api.md, errors: a query parameter a GET does not take is a 422 naming it, never silently ignored (a script's
  // `?limit=10` on a list without pages would read its answer as one page). The team record's two reads answer their
  // documented 400 invalid_query. On the owner's own ids, so each route gets past its owner check.
  it('every GET refuses a query parameter it does not take, naming it: never ignored', async () => {
    const gets = routes.filter((r) => r.method === 'GET');
    expect(gets.length).toBeGreaterThan(50);
    for (const { key: routeKey, route, file } of gets) {
      const spec = CASES[routeKey]!;
      const own: Foreign = 'foreign' in spec ? spec.foreign(world) : {};
      const query = own.query ? `${own.query}&zz_unknown=1` : '?zz_unknown=1';
      const res = await callRoute({ method: 'GET', route, file, params: own.params, query, headers: world.ann.auth });
      if (/\/(history|results)$/.test(route)) {
        expect([res.status, res.body.error?.code], routeKey).toEqual([400, 'invalid_query']);
        expect(res.body.error?.message, routeKey).toContain('zz_unknown');
        continue;
      }
      expect(res.status, `${routeKey}: ${JSON.stringify(res.body)}`).toBe(422);
      expect((res.body.error as { fields?: Record<string, string> }).fields, routeKey).toEqual({ zz_unknown: 'Unknown field' });
    }
  });

  it("ann's own calls on the same ids still work afterwards (the ids were real)", async () => {
    const get = routes.find((r) => r.key === 'GET /agents/[id]')!;
    const res = await callRoute({ ...get, params: { id: world.agent.id }, headers: world.ann.auth });
    expect(res.status).toBe(200);
    const team = routes.find((r) => r.key === 'GET /teams/[id]/results/[jobId]')!;
    expect((await callRoute({ ...team, params: { id: world.team.id, jobId: world.jobId }, headers: world.ann.auth })).status).toBe(200);
  });
});
