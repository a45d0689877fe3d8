import { describe, expect, it } from 'vitest';
import { GET as listTokens, POST as createToken } from '@/app/api/v1/tokens/route';
import { DELETE as revokeToken } from '@/app/api/v1/tokens/[id]/route';
import { GET as me } from '@/app/api/v1/me/route';
import { LIMITS } from '@/lib/limits';
import type { ApiTokenView, CreatedApiToken } from '@/lib/types/api-token';
import { makeUser } from '../support/users';

type Auth = Record<string, string>;
const URL_BASE = 'http://localhost/api/v1/tokens';

const list = (auth: Auth) => listTokens(new Request(URL_BASE, { headers: auth }), undefined);
/** makeUser's password: creating a token asks for it again (the password re-check has its own tests in test/auth). */
const PASSWORD = 'correct horse battery';
const withPassword = (body: unknown) =>
  body && typeof body === 'object' && !Array.isArray(body) ? { password: PASSWORD, ...body } : body;
const create = (auth: Auth, body: unknown) =>
  createToken(
    new Request(URL_BASE, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(withPassword(body)),
    }),
    undefined,
  );
const revoke = (auth: Auth, id: string) =>
  revokeToken(new Request(`${URL_BASE}/${id}`, { method: 'DELETE', headers: auth }), { params: Promise.resolve({ id }) });
const meStatus = async (token: string) =>
  (await me(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }), undefined)).status;

async function createOk(auth: Auth, name: string): Promise<CreatedApiToken> {
  const res = await create(auth, { name });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedApiToken;
}
async function names(auth: Auth): Promise<string[]> {
  const res = await list(auth);
  expect(res.status).toBe(200);
  return ((await res.json()) as { tokens: ApiTokenView[] }).tokens.map((t) => t.name);
}

describe('/api/v1/tokens', () => {
  it('answers 401 without credentials on every method', async () => {
    expect((await list({})).status).toBe(401);
    expect((await create({}, { name: 'x' })).status).toBe(401);
    expect((await revoke({}, 'anything')).status).toBe(401);
  });

  it('creates a token shown once, lists it without the secret, and the token authenticates', async () => {
    const ann = await makeUser('ann');
    const res = await create(ann.auth, { name: '  deploy script  ' });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = (await res.json()) as CreatedApiToken;
    expect(created).toMatchObject({ name: 'deploy script', lastUsedAt: null });
    expect(created.token).toMatch(/^ens_[A-Za-z0-9_-]{32}$/);
    expect(created.prefix).toBe(created.token.slice(0, 10));
    expect(new Date(created.createdAt).toString()).not.toBe('Invalid Date');

    const listed = (await (await list(ann.auth)).json()) as { tokens: Array<Record<string, unknown>> };
    const entry = listed.tokens.find((t) => t.id === created.id);
    expect(entry).toEqual({
      id: created.id,
      name: 'deploy script',
      prefix: created.prefix,
      createdAt: created.createdAt,
      lastUsedAt: null,
      expiresAt: null,
      expired: false,
      scope: 'full',
    });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    expect(await meStatus(created.token)).toBe(200);
    const used = (await (await list(ann.auth)).json()) as { tokens: ApiTokenView[] };
    expect(used.tokens.find((t) => t.id === created.id)?.lastUsedAt).not.toBeNull();
  });

  it('revokes a token: 204, gone from the list, and it answers 401 from then on', async () => {
    const ann = await makeUser('ann');
    const created = await createOk(ann.auth, 'temporary');
    const res = await revoke(ann.auth, created.id);
    expect(res.status).toBe(204);
    expect(await names(ann.auth)).not.toContain('temporary');
    expect(await meStatus(created.token)).toBe(401);
    expect((await revoke(ann.auth, created.id)).status).toBe(404);
  });

  it("can't list or revoke another user's tokens: 404 exactly like a missing id", async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const annToken = await createOk(ann.auth, 'ann only');
    expect(await names(bob.auth)).not.toContain('ann only');
    const foreign = await revoke(bob.auth, annToken.id);
    const missing = await revoke(bob.auth, crypto.randomUUID());
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
    expect(await meStatus(annToken.token)).toBe(200);
    expect(await names(ann.auth)).toContain('ann only');
  });

  it('allows LIMITS.apiToken.perUser active tokens, then 409 until one is revoked', async () => {
    const ann = await makeUser('ann'); // makeUser already gave ann one token
    const made: CreatedApiToken[] = [];
    for (let i = 1; i < LIMITS.apiToken.perUser; i++) made.push(await createOk(ann.auth, `t${i}`));
    expect((await names(ann.auth)).length).toBe(LIMITS.apiToken.perUser);
    const over = await create(ann.auth, { name: 'one too many' });
    expect(over.status).toBe(409);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe('token_limit');
    expect((await revoke(ann.auth, made[0]!.id)).status).toBe(204);
    expect((await create(ann.auth, { name: 'fits again' })).status).toBe(201);
  });

  describe('validation', () => {
    const fieldsOf = async (res: Response) => {
      expect(res.status).toBe(422);
      return ((await res.json()) as { error: { fields: Record<string, string> } }).error.fields;
    };

    it('names the offending field', async () => {
      const ann = await makeUser('ann');
      expect(Object.keys(await fieldsOf(await create(ann.auth, {})))).toEqual(['name']);
      expect(await fieldsOf(await create(ann.auth, { name: '' }))).toEqual({ name: 'Required' });
      expect(await fieldsOf(await create(ann.auth, { name: '   ' }))).toEqual({ name: 'Required' });
      expect(Object.keys(await fieldsOf(await create(ann.auth, { name: 42 })))).toEqual(['name']);
      expect(await fieldsOf(await create(ann.auth, { name: 'ok', role: 'admin' }))).toEqual({ role: 'Unknown field' });
      expect(await fieldsOf(await create(ann.auth, { name: 'ok', scope: 'admin' }))).toEqual({ scope: 'Choose "read" or "full"' });
      expect(await fieldsOf(await create(ann.auth, '{"name":"\\ud800"}'))).toEqual({ _: 'Text contains an unpaired UTF-16 surrogate' });
    });

    it('answers 400 for malformed JSON', async () => {
      const ann = await makeUser('ann');
      const res = await create(ann.auth, '{"name":');
      expect(res.status).toBe(400);
    });

    it.each([
      ['ASCII', 'a'],
      ['CJK', '鍵'],
      ['emoji', '🔑'],
    ])('accepts a %s name of exactly 64 characters and refuses 65', async (_label, ch) => {
      const ann = await makeUser('ann');
      const max = LIMITS.apiToken.name.maxChars;
      const ok = await createOk(ann.auth, ch.repeat(max));
      expect(ok.name).toBe(ch.repeat(max));
      expect(await fieldsOf(await create(ann.auth, { name: ch.repeat(max + 1) }))).toEqual({
        name: `Must be at most ${max} characters (now ${max + 1})`,
      });
    });
  });
});

describe('GET /api/v1/me', () => {
  it('returns the user for a token, 401 for a revoked one and without credentials', async () => {
    const ann = await makeUser('ann');
    const res = await me(new Request('http://localhost/api/v1/me', { headers: ann.auth }), undefined);
    expect(await res.json()).toEqual({ user: { id: ann.id, email: ann.email, name: 'ann' } });
    const created = await createOk(ann.auth, 'short-lived');
    expect(await meStatus(created.token)).toBe(200);
    await revoke(ann.auth, created.id);
    expect(await meStatus(created.token)).toBe(401);
    expect((await me(new Request('http://localhost/api/v1/me'), undefined)).status).toBe(401);
  });
});
