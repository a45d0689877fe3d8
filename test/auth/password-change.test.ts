import './support/next-auth';
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as changeRoute } from '@/app/api/v1/me/password/route';
import { GET as meRoute } from '@/app/api/v1/me/route';
import { LIMITS } from '@/lib/limits';
import { changePassword } from '@/server/auth/password-change';
import { eventsInWindow, setSignInClock } from '@/server/auth/rate-limit';
import { requireCaller } from '@/server/auth/require-user';
import { createApiToken } from '@/server/auth/tokens';
import { findUserById } from '@/server/auth/users';
import { schema, writeTx } from '@/server/db';
import { makeUser } from '../support/users';
import { postCredentials, sessionCookieFrom, signInOverHttp } from './support/http-auth';

const PASSWORD = 'correct horse battery'; // makeUser's password
const NEW_PASSWORD = 'a brand new passphrase';

// A test may hold every new password hash (computed after the current password was confirmed, before the write)
// until a condition it sets up, to put racing changes in a chosen order.
const newHashes = vi.hoisted(() => ({ hold: undefined as undefined | (() => Promise<void>) }));
vi.mock('@/server/auth/passwords', async (importOriginal) => {
  const real = await importOriginal<typeof import('@/server/auth/passwords')>();
  return {
    ...real,
    hashPassword: async (password: string) => {
      await newHashes.hold?.();
      return real.hashPassword(password);
    },
  };
});

/** Each caller waits until `parties` callers have arrived, then all go on. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === parties) open();
    return opened;
  };
}

beforeEach(async () => {
  await writeTx((tx) => tx.delete(schema.signInFailures));
});
afterEach(() => {
  setSignInClock();
  newHashes.hold = undefined;
});

const change = (headers: Record<string, string>, body: unknown) =>
  changeRoute(
    new Request('http://localhost/api/v1/me/password', {
      method: 'POST',
      // Same-origin, as a browser would send it (cookie-authenticated writes need it).
      headers: { origin: 'http://localhost', ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    undefined,
  );
const meStatus = async (headers: Record<string, string>) =>
  (await meRoute(new Request('http://localhost/api/v1/me', { headers }), undefined)).status;
const storedHash = async (userId: string) => (await findUserById(userId))!.passwordHash;
const signsIn = async (email: string, password: string) => sessionCookieFrom(await postCredentials({ email, password })) !== null;

describe('POST /api/v1/me/password', () => {
  it('changes the password, ends every session (this cookie too), and revokes every API token', async () => {
    const ann = await makeUser('ann');
    const cookie = await signInOverHttp({ email: ann.email, password: PASSWORD });
    const otherCookie = await signInOverHttp({ email: ann.email, password: PASSWORD });
    const version = (await findUserById(ann.id))!.sessionVersion;

    const res = await change({ cookie }, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(204);
    expect((await findUserById(ann.id))!.sessionVersion).toBe(version + 1);
    expect(await meStatus({ cookie })).toBe(401);
    expect(await meStatus({ cookie: otherCookie })).toBe(401);
    // Must not happen: a token made before the password change authenticating after it (ADR 041).
    expect(await meStatus(ann.auth)).toBe(401);
    expect(await signsIn(ann.email, PASSWORD)).toBe(false);
    expect(await signsIn(ann.email, NEW_PASSWORD)).toBe(true);
    expect(await storedHash(ann.id)).toMatch(/^scrypt\$/);
  });

  it('a wrong current password answers 403 naming the field, changes nothing, and counts as a failed sign-in', async () => {
    const ann = await makeUser('ann');
    const hash = await storedHash(ann.id);
    const res = await change(ann.auth, { currentPassword: 'guess', newPassword: NEW_PASSWORD });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { code: 'wrong_password', message: 'The password is not correct', fields: { currentPassword: 'Wrong password' } },
    });
    expect(await storedHash(ann.id)).toBe(hash);
    expect((await findUserById(ann.id))!.sessionVersion).toBe(1);
    expect(await eventsInWindow(`signin:account:${ann.email}`, LIMITS.signIn.account.windowMs)).toBe(1);
  });

  it('is limited like sign-in: the fifth wrong password is a 403, the sixth attempt a 429 even when right', async () => {
    const ann = await makeUser('ann');
    const now = Date.now();
    setSignInClock(() => now);
    for (let i = 0; i < LIMITS.signIn.pair.max; i++) {
      expect((await change(ann.auth, { currentPassword: `guess ${i}`, newPassword: NEW_PASSWORD })).status).toBe(403);
    }
    const res = await change(ann.auth, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await signsIn(ann.email, NEW_PASSWORD)).toBe(false);
  });

  it('refuses a new password the sign-up rules refuse, and needs the current one', async () => {
    const ann = await makeUser('ann');
    const short = await change(ann.auth, { currentPassword: PASSWORD, newPassword: 'seven77' });
    expect(short.status).toBe(422);
    expect(((await short.json()) as { error: { fields: object } }).error.fields).toEqual({ newPassword: 'Must be at least 8 characters' });
    const long = await change(ann.auth, { currentPassword: PASSWORD, newPassword: 'x'.repeat(LIMITS.user.password.maxChars + 1) });
    expect(long.status).toBe(422);
    const missing = await change(ann.auth, { newPassword: NEW_PASSWORD });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { error: { fields: object } }).error.fields).toEqual({ currentPassword: 'Enter your password' });
    expect(await signsIn(ann.email, PASSWORD)).toBe(true);
  });

  it('needs a signed-in caller, and only ever changes the caller’s own password', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const annHash = await storedHash(ann.id);
    expect((await change({}, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(401);
    // Bob knows the shared test password, so this changes Bob's; Ann's hash and sessions are untouched.
    expect((await change(bob.auth, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
    expect(await storedHash(ann.id)).toBe(annHash);
    expect((await findUserById(ann.id))!.sessionVersion).toBe(1);
    expect(await signsIn(ann.email, PASSWORD)).toBe(true);
  });

  it('two changes racing with the same current password: one wins, the other is refused with 409', async () => {
    const ann = await makeUser('ann');
    // Both confirm the current password before either writes (each waits for the other before its write).
    newHashes.hold = barrier(2);
    const results = await Promise.all([
      change(ann.auth, { currentPassword: PASSWORD, newPassword: 'first new password' }),
      change(ann.auth, { currentPassword: PASSWORD, newPassword: 'second new password' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('password_changed');
    const winner = results[0]!.status === 204 ? 'first new password' : 'second new password';
    const loser = winner === 'first new password' ? 'second new password' : 'first new password';
    expect(await signsIn(ann.email, winner)).toBe(true);
    expect(await signsIn(ann.email, loser)).toBe(false);
    expect((await findUserById(ann.id))!.sessionVersion).toBe(2);
  });

  it('a change whose caller was authenticated before another change wrote is refused with 409, even when it checks the password after that write', async () => {
    const ann = await makeUser('ann');
    // The other tab's request is authenticated now; its password check runs only after this tab's change is written.
    const otherTab = await requireCaller(new Request('http://localhost/api/v1/me/password', { headers: ann.auth }));
    expect((await change(ann.auth, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
    const refused = await changePassword(otherTab, { currentPassword: PASSWORD, newPassword: 'second new password' }, '203.0.113.7').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ status: 409, code: 'password_changed' });
    // The password it typed was right when it came: not a wrong password, not a failed sign-in.
    expect(await eventsInWindow(`signin:account:${ann.email}`, LIMITS.signIn.account.windowMs)).toBe(0);
    expect(await signsIn(ann.email, NEW_PASSWORD)).toBe(true);
    expect((await findUserById(ann.id))!.sessionVersion).toBe(2);
    // A request that comes after the change (with a token made after it: the change revoked the old ones), with the
    // old password: that password is wrong now.
    const { token: after } = await createApiToken(ann.id, 'after the change');
    const late = await change({ authorization: `Bearer ${after}` }, { currentPassword: PASSWORD, newPassword: 'third new password' });
    expect(late.status).toBe(403);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('wrong_password');
  });

  it('upgrades nothing it should not: a bcrypt user changing their password ends up with one scrypt hash', async () => {
    const ann = await makeUser('ann');
    const bcrypt = (await import('bcryptjs')).default;
    const crypto = await import('node:crypto');
    const old = await bcrypt.hash(crypto.createHash('sha256').update(PASSWORD).digest('base64'), 4);
    await writeTx((tx) => tx.update(schema.users).set({ passwordHash: old }).where(eq(schema.users.id, ann.id)));
    expect((await change(ann.auth, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD })).status).toBe(204);
    expect(await storedHash(ann.id)).toMatch(/^scrypt\$/);
    expect(await signsIn(ann.email, NEW_PASSWORD)).toBe(true);
    expect(await signsIn(ann.email, PASSWORD)).toBe(false);
  });
});
