import '../auth/support/next-auth';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as getRoute, PATCH as patchRoute, DELETE as deleteRoute } from '@/app/api/v1/admin/providers/[id]/route';
import { POST as testRoute } from '@/app/api/v1/admin/providers/[id]/test/route';
import { GET as listRoute, POST as createRoute } from '@/app/api/v1/admin/providers/route';
import { forgetUnsupportedParameters, rememberUnsupported } from '@/server/agents/model-call/unsupported-parameters';
import { getDb, schema, writeTx } from '@/server/db';
import { open } from '@/server/providers/secret-box';
import { adminStateSnapshot, makeAccount } from '../admin/helpers';
import { call } from '../support/teams';
import { startModelListStub } from './model-list-stub';

const KEY = 'sk-managed-SECRET-key-9876';
let stub: Awaited<ReturnType<typeof startModelListStub>>;

beforeAll(async () => {
  stub = await startModelListStub(KEY, ['gpt-4o', 'gpt-4.1-mini', 'bad name with spaces']);
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

const body = (over: Record<string, unknown> = {}) => ({ kind: 'openai', slug: 'lab', name: 'Lab', baseUrl: `${stub.origin}/v1`, apiKey: KEY, ...over });

/** A port nothing listens on: one the system just gave and took back. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function admin() {
  return makeAccount('admin', 'admin');
}

describe('/api/v1/admin/providers', () => {
  it('adds a provider: the key is stored encrypted and every answer shows only ••••last4', async () => {
    const a = await admin();
    const created = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ baseUrl: `${stub.origin}/v1/` }) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      slug: 'lab',
      name: 'Lab',
      kind: 'openai',
      baseUrl: `${stub.origin}/v1`,
      apiKey: '••••9876',
      models: [],
      modelsFetchedAt: null,
      maxConcurrent: null,
      requestsPerMinute: null,
      refusedParameters: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = (created.body as { id: string }).id;
    const [row] = await getDb().select().from(schema.providers);
    expect(row!.apiKeyCipher).not.toContain(KEY);
    expect(open(row!.apiKeyCipher!, id)).toBe(KEY);

    // What must not happen: the key (or any long piece of it) in any answer after it was saved.
    const answers = [
      created.raw,
      (await call(listRoute, { headers: a.auth })).raw,
      (await call(getRoute, { headers: a.auth, params: { id } })).raw,
      (await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { name: 'Lab 2' } })).raw,
      (await call(testRoute, { method: 'POST', headers: a.auth, params: { id } })).raw,
    ];
    for (const raw of answers) expect(raw).not.toContain('SECRET');
  });

  it('lists the built-in environment providers beside the managed ones, without their keys', async () => {
    const a = await admin();
    const res = await call(listRoute, { headers: a.auth });
    expect(res.status).toBe(200);
    expect((res.body as { builtin: { slug: string }[] }).builtin.map((b) => b.slug)).toEqual(['openai', 'anthropic', 'ollama']);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it("shows in each provider's status the parameters its server refused, for that endpoint only", async () => {
    const a = await admin();
    const lab = (await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).body as { id: string };
    await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: 'other', name: 'Other', baseUrl: `${stub.origin}/other/v1` }) });
    // As adaptive requests record a refusal (a trailing slash is the same endpoint).
    rememberUnsupported({ kind: 'openai', baseUrl: `${stub.origin}/v1/` }, ['stream_options']);
    rememberUnsupported({ kind: 'openai', baseUrl: `${stub.origin}/v1` }, ['parallel_tool_calls']);
    try {
      const listed = (await call(listRoute, { headers: a.auth })).body as { providers: { slug: string; refusedParameters: string[] }[]; builtin: { slug: string; refusedParameters: string[] }[] };
      // What must not happen: one server's refusals shown on (and so left out of requests to) another endpoint.
      expect(listed.providers.map((p) => [p.slug, p.refusedParameters])).toEqual([
        ['lab', ['stream_options', 'parallel_tool_calls']],
        ['other', []],
      ]);
      expect(listed.builtin.map((b) => b.refusedParameters)).toEqual([[], [], []]);
      expect((await call(getRoute, { headers: a.auth, params: { id: lab.id } })).body).toMatchObject({ refusedParameters: ['stream_options', 'parallel_tool_calls'] });
    } finally {
      forgetUnsupportedParameters();
    }
  });

  it('test connection lists the models (valid ids, sorted), caches them and reports the latency', async () => {
    const a = await admin();
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).body as { id: string };
    const res = await call(testRoute, { method: 'POST', headers: a.auth, params: { id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, models: 2, latencyMs: expect.any(Number), provider: { models: ['gpt-4.1-mini', 'gpt-4o'], modelsFetchedAt: expect.any(String) } });
    expect(stub.seen.at(-1)).toMatchObject({ url: '/v1/models', authorization: `Bearer ${KEY}` });
  });

  it('test connection of an OpenAI-compatible base URL missing its /v1 says to add it, instead of passing while every run would 404', async () => {
    const a = await admin();
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ baseUrl: stub.origin }) })).body as { id: string };
    const res = await call(testRoute, { method: 'POST', headers: a.auth, params: { id } });
    // Runs post to <base URL>/chat/completions: with the models only at <base>/v1/models, that would be <base>/chat/completions.
    expect(res.body).toMatchObject({
      ok: false,
      error: `The models are listed at ${stub.origin}/v1, and requests go to the base URL + /chat/completions: set the base URL to ${stub.origin}/v1.`,
      provider: { models: [], modelsFetchedAt: null },
    });
  });

  it('test connection with a wrong key says so plainly, without echoing the key the provider quoted', async () => {
    const a = await admin();
    const wrong = 'sk-wrong-SECRET-0000';
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ apiKey: wrong }) })).body as { id: string };
    const res = await call(testRoute, { method: 'POST', headers: a.auth, params: { id } });
    expect(res.body).toMatchObject({ ok: false, error: 'HTTP 401: Incorrect API key provided: [key]' });
    expect(res.raw).not.toContain('SECRET');
  });

  it('test connection reads Anthropic and Ollama lists, and reports an unreachable host and a redirect', async () => {
    const a = await admin();
    const anthropic = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ kind: 'anthropic', slug: 'ant', baseUrl: stub.origin }) })).body as { id: string };
    expect((await call(testRoute, { method: 'POST', headers: a.auth, params: { id: anthropic.id } })).body).toMatchObject({ ok: true, models: 2 });
    expect(stub.seen.at(-1)).toMatchObject({ url: '/v1/models?limit=1000', apiKey: KEY });
    const ollama = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ kind: 'ollama', slug: 'local', baseUrl: stub.origin, apiKey: undefined }) })).body as { id: string; apiKey: null };
    expect(ollama.apiKey).toBeNull();
    expect((await call(testRoute, { method: 'POST', headers: a.auth, params: { id: ollama.id } })).body).toMatchObject({ ok: true, models: 2 });
    const down = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: 'down', baseUrl: `http://127.0.0.1:${await closedPort()}/v1` }) })).body as { id: string };
    expect((await call(testRoute, { method: 'POST', headers: a.auth, params: { id: down.id } })).body).toMatchObject({ ok: false, error: 'Could not connect (ECONNREFUSED).' });
    const moved = (await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: 'moved', baseUrl: `${stub.origin}/redirect` }) })).body as { id: string };
    const redirected = await call(testRoute, { method: 'POST', headers: a.auth, params: { id: moved.id } });
    expect(redirected.body).toMatchObject({ ok: false, error: expect.stringMatching(/^HTTP 302: the provider redirected/) });
  });

  it('edits: a new key replaces the old (shown by its last four), null removes it, the cached models are dropped', async () => {
    const a = await admin();
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).body as { id: string };
    await call(testRoute, { method: 'POST', headers: a.auth, params: { id } });
    const changed = await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { apiKey: 'sk-other-abcd' } });
    expect(changed.body).toMatchObject({ apiKey: '••••abcd', models: [], modelsFetchedAt: null, slug: 'lab' });
    const removed = await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { apiKey: null } });
    expect(removed.body).toMatchObject({ apiKey: null });
    // The slug can't change: agents' model strings name it.
    expect((await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { slug: 'new' } })).status).toBe(422);
  });

  it('refuses a taken slug (409) and reserved or malformed ones (422)', async () => {
    const a = await admin();
    expect((await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).status).toBe(201);
    const again = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ name: 'Other' }) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'slug_taken', fields: { slug: 'Already used by another provider' } } });
    for (const slug of ['openai', 'anthropic', 'ollama', 'scripted', 'Lab', 'la_b', '-lab', 'lab-', 'a'.repeat(33), '模型', '🤖']) {
      const res = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug }) });
      expect(res.status, slug).toBe(422);
      expect(Object.keys((res.body as { error: { fields: object } }).error.fields)).toEqual(['slug']);
    }
    expect((await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: 'b'.repeat(32) }) })).status).toBe(201);
  });

  it('names: at most 60 characters in ASCII, CJK and emoji (61 refused); base URLs http(s) without credentials', async () => {
    const a = await admin();
    const cases: [string, number][] = [
      ['n'.repeat(60), 201],
      ['n'.repeat(61), 422],
      ['名'.repeat(60), 201],
      ['名'.repeat(61), 422],
      ['🤖'.repeat(60), 201],
      ['🤖'.repeat(61), 422],
      ['two\nlines', 422],
      ['   ', 422],
    ];
    for (const [i, [name, status]] of cases.entries()) {
      const res = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: `n${i}`, name }) });
      expect(res.status, `${[...name].length} × ${name[0]}`).toBe(status);
    }
    for (const baseUrl of ['ftp://x.test', 'http://user:pw@x.test/v1', 'https://x.test/v1?key=1', 'not a url']) {
      const res = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ slug: 'u', baseUrl }) });
      expect(res.status, baseUrl).toBe(422);
    }
  });

  it('caps on calls: whole numbers 1–1000 at once and 1–100000 a minute (0 and one past refused), null for the default; a run takes them', async () => {
    const a = await admin();
    const created = await call(createRoute, { method: 'POST', headers: a.auth, body: body({ maxConcurrent: 1000, requestsPerMinute: 100_000 }) });
    expect(created.body).toMatchObject({ maxConcurrent: 1000, requestsPerMinute: 100_000 });
    const { id } = created.body as { id: string };
    for (const [field, value] of [['maxConcurrent', 0], ['maxConcurrent', 1001], ['maxConcurrent', 2.5], ['maxConcurrent', '4'], ['requestsPerMinute', 0], ['requestsPerMinute', 100_001]] as const) {
      const res = await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { [field]: value } });
      expect(res.status, `${field} ${value}`).toBe(422);
      expect(Object.keys((res.body as { error: { fields: object } }).error.fields)).toEqual([field]);
    }
    const edited = await call(patchRoute, { method: 'PATCH', headers: a.auth, params: { id }, body: { maxConcurrent: 1, requestsPerMinute: null } });
    expect(edited.body).toMatchObject({ maxConcurrent: 1, requestsPerMinute: null });
    // What a run's calls are held to (server/providers/capacity): the provider's own caps, read at run start.
    const { resolveProvider } = await import('@/server/providers/resolve');
    expect((await resolveProvider('lab', 'lab:m')).limits).toEqual({ maxConcurrent: 1, requestsPerMinute: null });
  });

  it('removes a provider (204, then 404)', async () => {
    const a = await admin();
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).body as { id: string };
    expect((await call(deleteRoute, { method: 'DELETE', headers: a.auth, params: { id } })).status).toBe(204);
    expect((await call(deleteRoute, { method: 'DELETE', headers: a.auth, params: { id } })).status).toBe(404);
    expect((await call(getRoute, { headers: a.auth, params: { id } })).status).toBe(404);
  });

  it("a member can't list, read, add, edit, test or remove providers: 404, and nothing changes", async () => {
    // What must not happen: a non-admin learning that providers exist, seeing one, or changing one.
    const a = await admin();
    const member = await makeAccount('member', 'member');
    const { id } = (await call(createRoute, { method: 'POST', headers: a.auth, body: body() })).body as { id: string };
    const before = await adminStateSnapshot();
    const refused = [
      await call(listRoute, { headers: member.auth }),
      await call(createRoute, { method: 'POST', headers: member.auth, body: body({ slug: 'mine' }) }),
      await call(getRoute, { headers: member.auth, params: { id } }),
      await call(patchRoute, { method: 'PATCH', headers: member.auth, params: { id }, body: { baseUrl: 'http://evil.test/v1' } }),
      await call(testRoute, { method: 'POST', headers: member.auth, params: { id } }),
      await call(deleteRoute, { method: 'DELETE', headers: member.auth, params: { id } }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'not_found', message: 'Resource not found' } });
    }
    expect(await adminStateSnapshot()).toBe(before);
  });
});
