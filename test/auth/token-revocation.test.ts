import { and, eq, isNull } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { GET as meRoute } from '@/app/api/v1/me/route';
import { setAccountDisabled } from '@/server/admin/accounts';
import { changePassword } from '@/server/auth/password-change';
import { requireCaller } from '@/server/auth/require-user';
import { createApiToken, listApiTokens } from '@/server/auth/tokens';
import { createUser } from '@/server/auth/users';
import { getDb, schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';

/** Tokens end with the password and with the account (ADR 041). */

const PASSWORD = 'correct horse battery'; // makeUser's password
const NEW_PASSWORD = 'a brand new passphrase';

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});

const meStatus = async (token: string) =>
  (await meRoute(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }), undefined)).status;
const callerFor = (token: string) => requireCaller(new Request('http://localhost/api/v1/me', { headers: { authorization: `Bearer ${token}` } }));
const liveTokens = async (userId: string) =>
  (await getDb().select().from(schema.apiTokens).where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))).length;

describe('a password change', () => {
  it('revokes every token of the account, read-only and full, and no other account’s', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const reader = await createApiToken(ann.id, 'reader', { scope: 'read' });
    await changePassword(await callerFor(ann.token), { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, '192.0.2.1');
    // Must not happen: a token made before a password change authenticating after it.
    expect(await meStatus(ann.token)).toBe(401);
    expect(await meStatus(reader.token)).toBe(401);
    expect(await listApiTokens(ann.id)).toEqual([]);
    expect(await meStatus(bob.token)).toBe(200);
    // A token made after the change works.
    const after = await createApiToken(ann.id, 'after');
    expect(await meStatus(after.token)).toBe(200);
  });

  it('refuses a token whose password was confirmed before a change committed (409), and makes none', async () => {
    const ann = await makeUser('ann');
    // The token request authenticated (and confirmed the old password) under this session version…
    const { sessionVersion } = await callerFor(ann.token);
    // …then a password change commits before the token is written.
    await changePassword(await callerFor(ann.token), { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, '192.0.2.1');
    // Must not happen: a token outliving the password change it raced.
    await expect(createApiToken(ann.id, 'late', { sessionVersion })).rejects.toMatchObject({ status: 409, code: 'password_changed' });
    expect(await liveTokens(ann.id)).toBe(0);
    // Under the current version it is made.
    const current = (await getDb().select().from(schema.users).where(eq(schema.users.id, ann.id)))[0]!.sessionVersion;
    await expect(createApiToken(ann.id, 'now', { sessionVersion: current })).resolves.toMatchObject({ info: { name: 'now' } });
  });
});

describe('disabling an account', () => {
  it('revokes its tokens, so re-enabling it does not revive them; new ones work', async () => {
    const admin = await createUser({ email: `admin-${crypto.randomUUID().slice(0, 8)}@example.test`, password: PASSWORD, name: 'A' }, { role: 'admin' });
    const bo = await makeUser('bo');
    const reader = await createApiToken(bo.id, 'reader', { scope: 'read' });
    await setAccountDisabled(admin.id, bo.id, true);
    expect(await liveTokens(bo.id)).toBe(0);
    await setAccountDisabled(admin.id, bo.id, false);
    // Must not happen: a re-enabled account's old tokens authenticating again.
    expect(await meStatus(bo.token)).toBe(401);
    expect(await meStatus(reader.token)).toBe(401);
    const fresh = await createApiToken(bo.id, 'fresh');
    expect(await meStatus(fresh.token)).toBe(200);
  });
});
