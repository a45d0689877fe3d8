import { describe, expect, it } from 'vitest';
import { POST as createRoute } from '@/app/api/v1/agents/route';
import { GET as getRoute, PATCH as patchRoute } from '@/app/api/v1/agents/[id]/route';
import type { ApiAgent } from '@/lib/types/agent';
import { statement } from '@/server/db/statement';
import { makeUser } from '../support/users';

type TestUser = Awaited<ReturnType<typeof makeUser>>;
type ErrorBody = { error: { code: string; fields?: Record<string, string> } };

const BASE = 'http://localhost/api/v1/agents';
const request = (url: string, method: string, user: TestUser, body?: unknown) =>
  new Request(url, { method, headers: { 'content-type': 'application/json', ...user.auth }, body: body === undefined ? undefined : JSON.stringify(body) });
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
const create = (user: TestUser, body: unknown) => createRoute(request(BASE, 'POST', user, body), undefined as never);
const patch = (user: TestUser, id: string, body: unknown) => patchRoute(request(`${BASE}/${id}`, 'PATCH', user, body), ctx(id));
const read = async (user: TestUser, id: string) => (await (await getRoute(request(`${BASE}/${id}`, 'GET', user), ctx(id))).json()) as ApiAgent;
const storedThreshold = async (id: string) => ((await statement('select compact_at_tokens as t from agents where id = ?').get(id)) as { t: number | null }).t;

describe('the agent setting compactAtTokens', () => {
  it('defaults to null (the instance default) and accepts 1,000 and 1,000,000 on create', async () => {
    const ann = await makeUser('ann');
    const plain = (await (await create(ann, { name: 'Plain' })).json()) as ApiAgent;
    expect(plain.compactAtTokens).toBeNull();
    for (const [name, value] of [['Low', 1_000], ['High', 1_000_000]] as const) {
      const res = await create(ann, { name, compactAtTokens: value });
      expect(res.status).toBe(201);
      const agent = (await res.json()) as ApiAgent;
      expect(agent.compactAtTokens).toBe(value);
      expect(await storedThreshold(agent.id)).toBe(value);
    }
  });

  it('refuses 999, 1,000,001, fractions and text with 422 naming the field, and stores nothing', async () => {
    const bob = await makeUser('bob');
    for (const value of [999, 1_000_001, 1_500.5, '2000', 0, -1]) {
      const res = await create(bob, { name: `Bad ${String(value)}`, compactAtTokens: value });
      expect(res.status).toBe(422);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.fields?.compactAtTokens).toContain('1,000 to 1,000,000');
    }
    expect((await statement('select count(*) as n from agents where owner_id = ?').get(bob.id))).toEqual({ n: 0 });
  });

  it('PATCH changes it at the bounds, clears it with null, refuses one past each bound', async () => {
    const cy = await makeUser('cy');
    const agent = (await (await create(cy, { name: 'Patched' })).json()) as ApiAgent;
    for (const value of [1_000, 1_000_000, null]) {
      const res = await patch(cy, agent.id, { compactAtTokens: value });
      expect(res.status).toBe(200);
      expect(((await res.json()) as ApiAgent).compactAtTokens).toBe(value);
    }
    await patch(cy, agent.id, { compactAtTokens: 5_000 });
    for (const value of [999, 1_000_001]) {
      const res = await patch(cy, agent.id, { compactAtTokens: value });
      expect(res.status).toBe(422);
      expect(((await res.json()) as ErrorBody).error.fields).toHaveProperty('compactAtTokens');
    }
    expect((await read(cy, agent.id)).compactAtTokens).toBe(5_000);
  });

  it("another owner can't change it: 404, and the value stays", async () => {
    const dee = await makeUser('dee');
    const eve = await makeUser('eve');
    const agent = (await (await create(dee, { name: 'Mine', compactAtTokens: 2_000 })).json()) as ApiAgent;
    const res = await patch(eve, agent.id, { compactAtTokens: 1_000 });
    expect(res.status).toBe(404);
    expect(await storedThreshold(agent.id)).toBe(2_000);
    expect((await read(dee, agent.id)).compactAtTokens).toBe(2_000);
  });
});
