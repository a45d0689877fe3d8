import '../auth/support/next-auth';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POST as testRoute } from '@/app/api/v1/admin/providers/[id]/test/route';
import { POST as createRoute } from '@/app/api/v1/admin/providers/route';
import { GET as modelsRoute, POST as modelsPost } from '@/app/api/v1/models/route';
import { schema, writeTx } from '@/server/db';
import { makeAccount } from '../admin/helpers';
import { call } from '../support/teams';
import { startModelListStub } from './model-list-stub';

const KEY = 'sk-catalog-SECRET-key-4321';
let stub: Awaited<ReturnType<typeof startModelListStub>>;

beforeAll(async () => {
  stub = await startModelListStub(KEY, ['gpt-4o', 'gpt-4.1-mini']);
});
afterAll(async () => {
  await stub.close();
});
beforeEach(async () => {
  await writeTx(async (tx) => {
    await tx.delete(schema.providers);
    await tx.delete(schema.users);
  });
});

/** Every key of every object in a JSON value, however deep. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  return [];
}

describe('GET /api/v1/models', () => {
  it('answers 401 to a caller without credentials', async () => {
    const res = await call(modelsRoute, { url: 'http://localhost/api/v1/models' });
    expect(res.status).toBe(401);
    expect(res.raw).not.toContain('providers');
  });

  it('shows a member every provider and its cached models, never a base URL, a key or its last four', async () => {
    const admin = await makeAccount('admin', 'admin');
    const created = await call(createRoute, {
      method: 'POST',
      headers: admin.auth,
      body: { kind: 'openai', slug: 'lab', name: 'Lab 🧪 模型', baseUrl: `${stub.origin}/v1`, apiKey: KEY },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call(testRoute, { method: 'POST', headers: admin.auth, params: { id } })).body).toMatchObject({ ok: true, models: 2 });

    const member = await makeAccount('member', 'member');
    const res = await call(modelsRoute, { headers: member.auth, url: 'http://localhost/api/v1/models' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { providers } = res.body as { providers: { id: string }[] };
    expect(providers[0]).toEqual({ id: 'scripted', name: 'Built in (scripted)', kind: 'scripted', models: ['scripted'], configured: true });
    expect(providers.find((p) => p.id === 'lab')).toEqual({ id: 'lab', name: 'Lab 🧪 模型', kind: 'openai', models: ['gpt-4.1-mini', 'gpt-4o'], configured: true });
    expect(providers.map((p) => p.id)).toEqual(['scripted', 'lab', 'openai', 'anthropic', 'ollama']);
    // What must not happen: a member learning where a provider answers or any part of its key.
    expect(keysOf(res.body).filter((k) => /baseurl|apikey|last4|cipher|variables/i.test(k))).toEqual([]);
    expect(res.raw).not.toContain(stub.origin);
    expect(res.raw).not.toContain('127.0.0.1');
    expect(res.raw).not.toContain('SECRET');
    expect(res.raw).not.toContain('4321');
  });

  it('lists a provider whose connection was never tested with no models, and the embedded model always', async () => {
    const admin = await makeAccount('admin', 'admin');
    await call(createRoute, { method: 'POST', headers: admin.auth, body: { kind: 'ollama', slug: 'local', name: 'Local', baseUrl: stub.origin } });
    const member = await makeAccount('member', 'member');
    const { body } = await call(modelsRoute, { headers: member.auth, url: 'http://localhost/api/v1/models' });
    const providers = (body as { providers: { id: string; models: string[] }[] }).providers;
    expect(providers.find((p) => p.id === 'local')?.models).toEqual([]);
    expect(providers.find((p) => p.id === 'scripted')?.models).toEqual(['scripted']);
  });

  it('answers 405 with an Allow header to POST from a member, and changes nothing', async () => {
    const member = await makeAccount('member', 'member');
    const res = await call(modelsPost, { method: 'POST', headers: member.auth, url: 'http://localhost/api/v1/models', body: { slug: 'x' } });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ error: { code: 'method_not_allowed' } });
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const after = await call(modelsRoute, { headers: member.auth, url: 'http://localhost/api/v1/models' });
    expect((after.body as { providers: { id: string }[] }).providers.map((p) => p.id)).toEqual(['scripted', 'openai', 'anthropic', 'ollama']);
  });
});
