import { signIn } from '../support/action-session';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';

const { createTokenAction, revokeTokenAction } = await import('@/app/(app)/settings/actions');
const { GET: me } = await import('@/app/api/v1/me/route');
const { LIMITS } = await import('@/lib/limits');
const { getDb, schema, writeTx } = await import('@/server/db');
const { makeUser } = await import('../support/users');
const { NOT_FOUND, fieldError, rowsOf } = await import('./support');

const PASSWORD = 'correct horse battery';
const FROM_ADDRESS = { 'x-forwarded-for': '192.0.2.7' };
// Every token column but lastUsedAt, which the signed-in caller's own bearer token moves by being used.
const tokenRows = async () =>
  JSON.stringify(
    await getDb()
      .select({ id: schema.apiTokens.id, userId: schema.apiTokens.userId, name: schema.apiTokens.name, hash: schema.apiTokens.tokenHash, expiresAt: schema.apiTokens.expiresAt, revokedAt: schema.apiTokens.revokedAt })
      .from(schema.apiTokens),
  );
const meStatus = async (token: string) =>
  (await me(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }), undefined)).status;

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});

describe('token actions, for the owner', () => {
  it('createTokenAction asks for the password and mints a working token, shown once', async () => {
    const alice = await makeUser('alice');
    signIn(alice, FROM_ADDRESS);
    const created = await createTokenAction({ name: 'laptop script', expiresInDays: 30, password: PASSWORD });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    expect(created.data).toMatchObject({ name: 'laptop script', token: expect.any(String), expiresAt: expect.any(String), expired: false });
    expect(await meStatus(created.data.token)).toBe(200);
    const [row] = await getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.id, created.data.id));
    expect(row).toMatchObject({ userId: alice.id, name: 'laptop script', revokedAt: null });
    // Only the hash is stored.
    expect(JSON.stringify(row)).not.toContain(created.data.token);
  });

  it('a wrong password is refused on the password field and mints nothing', async () => {
    const alice = await makeUser('alice');
    signIn(alice, FROM_ADDRESS);
    const before = await tokenRows();
    expect(await createTokenAction({ name: 'x', expiresInDays: null, password: 'not the password' })).toMatchObject({
      ok: false,
      error: { code: 'wrong_password', fields: { password: 'Wrong password' } },
    });
    expect(await tokenRows()).toBe(before);
    // It counts as a failed sign-in, as on the API.
    expect(await rowsOf(schema.signInFailures)).not.toBe('[[]]');
  });

  it('bounds the name: 64 characters pass, 65 is a field error; an unknown lifetime names expiresInDays', async () => {
    const alice = await makeUser('alice');
    signIn(alice, FROM_ADDRESS);
    const max = LIMITS.apiToken.name.maxChars;
    expect(await createTokenAction({ name: 'n'.repeat(max + 1), expiresInDays: 30, password: PASSWORD })).toMatchObject(fieldError('name'));
    expect(await createTokenAction({ name: '', expiresInDays: 30, password: PASSWORD })).toMatchObject(fieldError('name'));
    expect(await createTokenAction({ name: 'x', expiresInDays: 7, password: PASSWORD })).toMatchObject(fieldError('expiresInDays'));
    expect(await createTokenAction({ name: 'n'.repeat(max), expiresInDays: 30, password: PASSWORD })).toMatchObject({ ok: true, data: { name: 'n'.repeat(max) } });
  });

  it('revokeTokenAction stops the token at once; revoking it again is not_found', async () => {
    const alice = await makeUser('alice');
    signIn(alice, FROM_ADDRESS);
    const created = await createTokenAction({ name: 'short-lived', expiresInDays: null, password: PASSWORD });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    expect(await revokeTokenAction(created.data.id)).toEqual({ ok: true, data: null });
    expect(await meStatus(created.data.token)).toBe(401);
    expect(await revokeTokenAction(created.data.id)).toMatchObject(NOT_FOUND);
  });
});

describe('token actions, for anyone else', () => {
  it("another person's token id answers not_found and the token keeps working", async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    signIn(bob, FROM_ADDRESS);
    const aliceTokenId = (await getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.userId, alice.id)))[0]!.id;
    const before = await tokenRows();
    expect(await revokeTokenAction(aliceTokenId)).toMatchObject(NOT_FOUND);
    expect(await tokenRows()).toBe(before);
    expect(await meStatus(alice.token)).toBe(200);
  });

  it('signed out, both actions answer unauthorized and nothing changes', async () => {
    const alice = await makeUser('alice');
    const tokenId = (await getDb().select().from(schema.apiTokens).where(eq(schema.apiTokens.userId, alice.id)))[0]!.id;
    const before = await tokenRows();
    expect(await createTokenAction({ name: 'x', expiresInDays: 30, password: PASSWORD })).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await revokeTokenAction(tokenId)).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
    expect(await tokenRows()).toBe(before);
  });
});
