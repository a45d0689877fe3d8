import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET as listRoute, POST as createRoute } from '@/app/api/v1/tokens/route';
import { DELETE as revokeRoute } from '@/app/api/v1/tokens/[id]/route';
import { GET as meRoute } from '@/app/api/v1/me/route';
import { LIMITS } from '@/lib/limits';
import type { ApiTokenView, CreatedApiToken } from '@/lib/types/api-token';
import { hashPassword } from '@/server/auth/passwords';
import { eventsInWindow, setSignInClock } from '@/server/auth/rate-limit';
import { signOutEverywhere } from '@/server/auth/sign-out-everywhere';
import { createApiToken, listApiTokens, revokeApiToken, tokenExpiry, tokenView, userForToken } from '@/server/auth/tokens';
import { findUserById } from '@/server/auth/users';
import { getDb, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { makeUser } from '../support/users';

const PASSWORD = 'correct horse battery'; // makeUser's password
const DAY = 24 * 60 * 60_000;

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});
afterEach(() => {
  vi.useRealTimers();
  setSignInClock();
});

const post = (auth: Record<string, string>, body: unknown) =>
  createRoute(
    new Request('http://localhost/api/v1/tokens', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    undefined,
  );
const list = async (auth: Record<string, string>) =>
  ((await (await listRoute(new Request('http://localhost/api/v1/tokens', { headers: auth }), undefined)).json()) as { tokens: ApiTokenView[] })
    .tokens;
const meStatus = async (token: string) =>
  (await meRoute(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }), undefined)).status;
const tokenCount = async (userId: string) => (await getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.userId, userId))).length;
const storedHash = statement('select token_hash from api_tokens where id = ?');

describe('API tokens', () => {
  it('resolve to their user until revoked, and are stored only as a hash', async () => {
    const alice = await makeUser('alice');
    const { token, info } = await createApiToken(alice.id, 'cli');
    expect((await userForToken(token))?.id).toBe(alice.id);
    const stored = (await storedHash.get<{ token_hash: string }>(info.id))!;
    expect(stored.token_hash).not.toContain(token);
    await revokeApiToken(alice.id, info.id);
    expect(await userForToken(token)).toBeNull();
  });

  it("can't be listed or revoked by another owner", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { token, info } = await createApiToken(alice.id, 'mine');
    expect((await listApiTokens(bob.id)).map((t) => t.id)).not.toContain(info.id);
    await expect(revokeApiToken(bob.id, info.id)).rejects.toThrow(/not found/);
    expect((await userForToken(token))?.id).toBe(alice.id);
  });

  it("DELETE /api/v1/tokens/:id by another owner answers 404 and the token keeps working", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { token, info } = await createApiToken(alice.id, 'mine');
    const res = await revokeRoute(new Request(`http://localhost/api/v1/tokens/${info.id}`, { method: 'DELETE', headers: bob.auth }), {
      params: Promise.resolve({ id: info.id }),
    });
    expect(res.status).toBe(404);
    expect((await getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.id, info.id)))[0]?.revokedAt).toBeNull();
    expect(await meStatus(token)).toBe(200);
  });
});

describe('token expiry', () => {
  it('works until 1 ms before the expiry instant, and not at it or 1 ms past it', async () => {
    const alice = await makeUser('alice');
    const expiresAt = new Date('2031-06-01T12:00:00.000Z');
    const { token } = await createApiToken(alice.id, 'short-lived', { expiresAt });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(expiresAt.getTime() - 1);
    expect((await userForToken(token))?.id).toBe(alice.id);
    expect(await meStatus(token)).toBe(200);
    vi.setSystemTime(expiresAt.getTime());
    expect(await userForToken(token)).toBeNull();
    expect(await meStatus(token)).toBe(401);
    vi.setSystemTime(expiresAt.getTime() + 1);
    expect(await meStatus(token)).toBe(401);
  });

  it('an expired token stays listed, marked expired, and no longer counts toward the per-user maximum', async () => {
    const alice = await makeUser('alice'); // holds one token already
    const expiresAt = new Date(Date.now() + DAY);
    const { info } = await createApiToken(alice.id, 'old', { expiresAt });
    const fresh = tokenView((await listApiTokens(alice.id)).find((t) => t.id === info.id)!);
    expect(fresh).toMatchObject({ expired: false, expiresAt: expiresAt.toISOString() });
    for (let i = 2; i < LIMITS.apiToken.perUser; i++) await createApiToken(alice.id, `t${i}`);
    await expect(createApiToken(alice.id, 'one too many')).rejects.toThrow(/at most/);

    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(expiresAt);
    const listed = (await list(alice.auth)).find((t) => t.id === info.id);
    expect(listed).toMatchObject({ expired: true, expiresAt: expiresAt.toISOString() });
    await expect(createApiToken(alice.id, 'replaces the expired one')).resolves.toMatchObject({ info: { name: 'replaces the expired one' } });
  });

  it('tokenExpiry: 30 and 90 days from now, or never', () => {
    const from = new Date('2031-01-01T00:00:00.000Z');
    expect(tokenExpiry(30, from)?.toISOString()).toBe('2031-01-31T00:00:00.000Z');
    expect(tokenExpiry(90, from)?.toISOString()).toBe('2031-04-01T00:00:00.000Z');
    expect(tokenExpiry(null, from)).toBeNull();
  });
});

describe('last used', () => {
  it('is null until the token is used, then when it was (to the minute)', async () => {
    const alice = await makeUser('alice');
    const { token, info } = await createApiToken(alice.id, 'cli');
    const view = async () => (await listApiTokens(alice.id)).find((t) => t.id === info.id)!;
    expect((await view()).lastUsedAt).toBeNull();
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2031-02-02T10:00:00.000Z');
    vi.setSystemTime(t0);
    await meStatus(token);
    expect((await view()).lastUsedAt?.toISOString()).toBe(t0.toISOString());
    vi.setSystemTime(t0.getTime() + 59_999);
    await meStatus(token);
    expect((await view()).lastUsedAt?.toISOString()).toBe(t0.toISOString());
    vi.setSystemTime(t0.getTime() + 60_000);
    await meStatus(token);
    expect((await view()).lastUsedAt?.getTime()).toBe(t0.getTime() + 60_000);
  });
});

describe('POST /api/v1/tokens', () => {
  it('asks for the password again and sets the chosen lifetime', async () => {
    const alice = await makeUser('alice');
    const before = Date.now();
    const res = await post(alice.auth, { name: 'ci', expiresInDays: 30, password: PASSWORD });
    expect(res.status).toBe(201);
    const created = (await res.json()) as CreatedApiToken;
    expect(created).toMatchObject({ name: 'ci', expired: false, lastUsedAt: null });
    const expires = Date.parse(created.expiresAt!);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * DAY);
    expect(await meStatus(created.token)).toBe(200);

    const forever = (await (await post(alice.auth, { name: 'forever', password: PASSWORD })).json()) as CreatedApiToken;
    expect(forever.expiresAt).toBeNull();
  });

  it('a wrong password answers 403 naming the field, creates nothing, and counts as a failed sign-in', async () => {
    const alice = await makeUser('alice');
    const before = await tokenCount(alice.id);
    const res = await post(alice.auth, { name: 'ci', password: 'guess' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { code: 'wrong_password', message: 'The password is not correct', fields: { password: 'Wrong password' } },
    });
    expect(await tokenCount(alice.id)).toBe(before);
    expect(await eventsInWindow(`signin:account:${alice.email}`, LIMITS.signIn.account.windowMs)).toBe(1);
    // A right password is not counted.
    expect((await post(alice.auth, { name: 'ci', password: PASSWORD })).status).toBe(201);
    expect(await eventsInWindow(`signin:account:${alice.email}`, LIMITS.signIn.account.windowMs)).toBe(1);
  });

  it('after the limit of wrong passwords answers 429 with Retry-After, even for the right one', async () => {
    const alice = await makeUser('alice');
    const now = Date.now();
    setSignInClock(() => now);
    for (let i = 0; i < LIMITS.signIn.pair.max; i++) expect((await post(alice.auth, { name: 'x', password: `guess ${i}` })).status).toBe(403);
    const res = await post(alice.auth, { name: 'x', password: PASSWORD });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect((await res.json()) as object).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('a missing password or a lifetime not offered is a 422 naming the field', async () => {
    const alice = await makeUser('alice');
    const noPassword = await post(alice.auth, { name: 'ci' });
    expect(noPassword.status).toBe(422);
    expect(((await noPassword.json()) as { error: { fields: object } }).error.fields).toEqual({ password: 'Enter your password' });
    const badExpiry = await post(alice.auth, { name: 'ci', password: PASSWORD, expiresInDays: 365 });
    expect(badExpiry.status).toBe(422);
    expect(Object.keys(((await badExpiry.json()) as { error: { fields: object } }).error.fields)).toEqual(['expiresInDays']);
  });

  it("checks the caller's own password: another account's password is refused", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const passwordHash = await hashPassword('only alice knows this');
    await writeTx((tx) => tx.update(schema.users).set({ passwordHash }).where(eq(schema.users.id, alice.id)));
    const before = await tokenCount(bob.id);
    expect((await post(bob.auth, { name: 'b', password: 'only alice knows this' })).status).toBe(403);
    expect(await tokenCount(bob.id)).toBe(before);
  });
});

describe('signOutEverywhere', () => {
  it("bumps the session version and revokes every one of the user's tokens, and nobody else's", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const second = (await createApiToken(alice.id, 'second')).token;
    const version = (await findUserById(alice.id))!.sessionVersion;
    expect(await signOutEverywhere(alice.id)).toEqual({ revokedTokens: 2 });
    expect((await findUserById(alice.id))!.sessionVersion).toBe(version + 1);
    expect(await meStatus(alice.token)).toBe(401);
    expect(await meStatus(second)).toBe(401);
    expect(await listApiTokens(alice.id)).toEqual([]);
    expect(await meStatus(bob.token)).toBe(200);
    expect((await findUserById(bob.id))!.sessionVersion).toBe(1);
  });
});
