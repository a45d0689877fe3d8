import { beforeAll, describe, expect, it } from 'vitest';
import { GET as listRoute, POST as createRoute } from '@/app/api/v1/agents/route';
import { DELETE as deleteRoute, GET as getRoute, PATCH as patchRoute } from '@/app/api/v1/agents/[id]/route';
import { LIMITS } from '@/lib/limits';
import type { ApiAgent, ApiAgentList } from '@/lib/types/agent';
import { statement } from '@/server/db/statement';
import { makeUser } from '../support/users';

type TestUser = Awaited<ReturnType<typeof makeUser>>;
type ErrorBody = { error: { code: string; message: string; fields?: Record<string, string> } };

const BASE = 'http://localhost/api/v1/agents';

function request(url: string, method: string, user: TestUser | null, body?: unknown): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(user ? user.auth : {}) };
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return new Request(url, { method, headers, body: payload });
}

const ctx = (id: string) => ({ params: Promise.resolve({ id }) });

const list = (user: TestUser | null, query?: string) =>
  listRoute(request(query === undefined ? BASE : `${BASE}?query=${encodeURIComponent(query)}`, 'GET', user), undefined as never);
const create = (user: TestUser | null, body: unknown) => createRoute(request(BASE, 'POST', user, body), undefined as never);
const read = (user: TestUser | null, id: string) => getRoute(request(`${BASE}/${id}`, 'GET', user), ctx(id));
const patch = (user: TestUser | null, id: string, body: unknown) => patchRoute(request(`${BASE}/${id}`, 'PATCH', user, body), ctx(id));
const remove = (user: TestUser | null, id: string) => deleteRoute(request(`${BASE}/${id}`, 'DELETE', user), ctx(id));

async function created(user: TestUser, body: Record<string, unknown>): Promise<ApiAgent> {
  const res = await create(user, body);
  expect(res.status).toBe(201);
  return (await res.json()) as ApiAgent;
}

async function errorOf(res: Response, status: number): Promise<ErrorBody['error']> {
  expect(res.status).toBe(status);
  return ((await res.json()) as ErrorBody).error;
}

const agentRows = statement('select * from agents where owner_id = ? order by id');
const rowsOf = (ownerId: string) => agentRows.all(ownerId);

let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  alice = await makeUser('alice');
  bob = await makeUser('bob');
});

describe('agents API: authentication', () => {
  it('answers 401 without credentials on every route, and with a bad token', async () => {
    const agent = await created(alice, { name: 'Guarded' });
    for (const res of [
      await list(null),
      await create(null, { name: 'Nope' }),
      await read(null, agent.id),
      await patch(null, agent.id, { name: 'Nope' }),
      await remove(null, agent.id),
    ]) {
      expect((await errorOf(res, 401)).code).toBe('unauthorized');
    }
    const forged = listRoute(new Request(BASE, { headers: { authorization: 'Bearer ens_forged' } }), undefined as never);
    expect((await forged).status).toBe(401);
    expect((await (await read(alice, agent.id)).json()).name).toBe('Guarded');
  });
});

describe('agents API: create', () => {
  it('answers 201 with the full agent shape and defaults', async () => {
    const res = await create(alice, { name: ' Analyst ', description: 'Looks at numbers' });
    expect(res.status).toBe(201);
    const agent = (await res.json()) as ApiAgent;
    expect(agent).toEqual({
      id: expect.any(String),
      name: 'Analyst',
      description: 'Looks at numbers',
      instructions: '',
      model: 'scripted',
      toolGroups: [],
      approvalTools: [],
      mcpTools: [],
      skills: [],
      maxTurns: 25,
      timeLimitMinutes: null,
      compactAtTokens: null,
      tokenBudget: null,
      allowedSubagents: 'all',
      maxDepth: 2,
      maxChildren: 6,
      maxConcurrentChildren: 3,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(new Date(agent.createdAt).toISOString()).toBe(agent.createdAt);
  });

  it('answers 422 naming each bad field, unknown fields included, and stores nothing', async () => {
    const user = await makeUser('carol');
    const err = await errorOf(
      await create(user, { name: '', model: 'gpt-4', maxTurns: 0, toolGroups: ['shell'], approvalTools: ['x'], owner: 'me' }),
      422,
    );
    expect(err.code).toBe('validation_error');
    expect(Object.keys(err.fields ?? {}).sort()).toEqual(['approvalTools', 'maxTurns', 'model', 'name', 'owner', 'toolGroups']);
    expect(err.fields?.owner).toBe('Unknown field');
    expect(err.fields?.model).toMatch(/provider:model/);
    expect(await rowsOf(user.id)).toEqual([]);
  });

  it('checks the bounds at exactly the limit and one past it in ASCII, CJK and emoji', async () => {
    const user = await makeUser('dave');
    let n = 0;
    for (const ch of ['a', '字', '😀']) {
      for (const [field, max] of [
        ['name', LIMITS.agent.name.maxChars],
        ['description', LIMITS.agent.description.maxChars],
        ['instructions', LIMITS.agent.instructions.maxChars],
      ] as const) {
        n += 1;
        const body = (value: string) => (field === 'name' ? { name: value } : { name: `bounds ${n}`, [field]: value });
        const ok = await create(user, body(ch.repeat(max)));
        expect(ok.status, `${field} ${max} × ${ch}`).toBe(201);
        expect(((await ok.json()) as ApiAgent)[field]).toBe(ch.repeat(max));
        const over = await create(user, body(ch.repeat(max + 1)));
        expect(Object.keys((await errorOf(over, 422)).fields ?? {}), `${field} ${max + 1} × ${ch}`).toEqual([field]);
      }
    }
    expect(await rowsOf(user.id)).toHaveLength(9);
  });

  it('answers 409 name_taken on the name field for a name that differs only in case', async () => {
    const user = await makeUser('erin');
    await created(user, { name: 'Duplicate' });
    const err = await errorOf(await create(user, { name: 'dUPLICATE' }), 409);
    expect(err.code).toBe('name_taken');
    expect(Object.keys(err.fields ?? {})).toEqual(['name']);
    expect(await rowsOf(user.id)).toHaveLength(1);
  });

  it('answers 400 for malformed JSON, an empty body and a non-object body', async () => {
    expect((await errorOf(await create(alice, '{"name": "x",'), 400)).code).toBe('invalid_json');
    expect((await errorOf(await create(alice, ''), 400)).code).toBe('invalid_json');
    expect((await errorOf(await create(alice, '[1,2]'), 422)).code).toBe('validation_error');
  });

  it('answers 422 for an unpaired surrogate, even written as a JSON escape', async () => {
    const user = await makeUser('frank');
    const res = await create(user, '{"name": "bad \\ud800 name"}');
    expect((await errorOf(res, 422)).code).toBe('validation_error');
    expect(await rowsOf(user.id)).toEqual([]);
  });

  it('answers 413 for a body over the limit and stores nothing', async () => {
    const user = await makeUser('gina');
    const body = JSON.stringify({ name: 'Huge', instructions: 'x'.repeat(LIMITS.requestBodyBytes) });
    expect((await errorOf(await create(user, body), 413)).code).toBe('payload_too_large');
    expect(await rowsOf(user.id)).toEqual([]);
  });
});

describe('agents API: list and search', () => {
  it('lists only the caller’s agents and searches name or description literally', async () => {
    const user = await makeUser('hank');
    await created(user, { name: 'Percent', description: 'always 100% sure' });
    await created(user, { name: 'Under_score' });
    await created(user, { name: 'Other', description: '1000 sure, underXscore' });
    const all = (await (await list(user)).json()) as ApiAgentList;
    expect(all.agents.map((a) => a.name)).toEqual(['Other', 'Percent', 'Under_score']);
    const percent = (await (await list(user, '0%')).json()) as ApiAgentList;
    expect(percent.agents.map((a) => a.name)).toEqual(['Percent']);
    const underscore = (await (await list(user, 'r_s')).json()) as ApiAgentList;
    expect(underscore.agents.map((a) => a.name)).toEqual(['Under_score']);
    const upper = (await (await list(user, 'PERC')).json()) as ApiAgentList;
    expect(upper.agents.map((a) => a.name)).toEqual(['Percent']);
    const foreign = (await (await list(bob, 'Percent')).json()) as ApiAgentList;
    expect(foreign.agents).toEqual([]);
  });

  it('answers 400 for over-long search text', async () => {
    expect((await errorOf(await list(alice, 'q'.repeat(201)), 400)).code).toBe('invalid_query');
  });
});

describe('agents API: read, update, delete', () => {
  it('PATCH changes only the given fields', async () => {
    const agent = await created(alice, { name: 'Patchable', description: 'before', instructions: 'stay', maxTurns: 5 });
    const res = await patch(alice, agent.id, { description: 'after', toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as ApiAgent;
    expect(updated).toEqual({
      ...agent,
      description: 'after',
      toolGroups: ['utility', 'clarify'],
      approvalTools: ['calculator'],
      updatedAt: updated.updatedAt,
    });
    expect((await (await read(alice, agent.id)).json()) as ApiAgent).toEqual(updated);
  });

  it('PATCH answers 422 with field names (unknown ones too) and changes nothing', async () => {
    const agent = await created(alice, { name: 'Unchanged' });
    const before = await (await read(alice, agent.id)).json();
    const err = await errorOf(await patch(alice, agent.id, { maxTurns: 151, id: 'new-id', model: 'Acme Inc:x' }), 422);
    expect(Object.keys(err.fields ?? {}).sort()).toEqual(['id', 'maxTurns', 'model']);
    expect((await errorOf(await patch(alice, agent.id, 'not json'), 400)).code).toBe('invalid_json');
    expect(await (await read(alice, agent.id)).json()).toEqual(before);
  });

  it('PATCH answers 409 when renaming onto another agent’s name', async () => {
    await created(alice, { name: 'Taken name' });
    const agent = await created(alice, { name: 'Free name' });
    const err = await errorOf(await patch(alice, agent.id, { name: 'TAKEN NAME' }), 409);
    expect([err.code, Object.keys(err.fields ?? {})]).toEqual(['name_taken', ['name']]);
    expect(((await (await read(alice, agent.id)).json()) as ApiAgent).name).toBe('Free name');
  });

  it('DELETE answers 204, then the agent is 404 everywhere', async () => {
    const agent = await created(alice, { name: 'Short-lived' });
    const res = await remove(alice, agent.id);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await errorOf(await read(alice, agent.id), 404)).code).toBe('not_found');
    expect((await patch(alice, agent.id, { description: 'x' })).status).toBe(404);
    expect((await remove(alice, agent.id)).status).toBe(404);
    const after = (await (await list(alice, 'Short-lived')).json()) as ApiAgentList;
    expect(after.agents).toEqual([]);
  });
});

describe("agents API: another owner's agent is 404", () => {
  it('bob gets 404 on GET, PATCH and DELETE of alice’s agent, exactly like a missing id, and alice’s agent is unchanged', async () => {
    const agent = await created(alice, { name: 'Private', description: 'mine' });
    const before = await (await read(alice, agent.id)).json();

    const missing = await errorOf(await read(bob, 'no-such-agent'), 404);
    expect(await errorOf(await read(bob, agent.id), 404)).toEqual(missing);
    expect(await errorOf(await patch(bob, agent.id, { name: 'Hijacked' }), 404)).toEqual(missing);
    expect(await errorOf(await remove(bob, agent.id), 404)).toEqual(missing);

    expect(await (await read(alice, agent.id)).json()).toEqual(before);
  });
});
