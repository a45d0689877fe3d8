import './support/next-auth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The account's server actions (sign out, sign out everywhere, change password) run outside Next here; next/headers
 * and next-auth's request-scoped helpers are stood in for by support/request-scope.ts. The browser signs in by
 * posting the sign-in form (form-posts.test.ts covers that route).
 */
vi.mock('next/headers', async () => (await import('./support/request-scope')).nextHeadersMock());
vi.mock('@/server/auth/config', async (importOriginal) =>
  (await import('./support/request-scope')).authConfigMock(await importOriginal()),
);

const { scope, resetScope } = await import('./support/request-scope');
const { post } = await import('./support/form-post');
const { signOutAction, signOutEverywhereAction } = await import('@/app/actions/auth');
const { changePasswordAction } = await import('@/app/(app)/settings/actions');
const { GET: me } = await import('@/app/api/v1/me/route');
const { setSignInClock } = await import('@/server/auth/rate-limit');
const { findUserByEmail } = await import('@/server/auth/users');
const { getDb, schema, writeTx } = await import('@/server/db');
const { makeUser } = await import('../support/users');

const PASSWORD = 'correct horse battery';
const T0 = Date.parse('2031-01-01T00:00:00Z');
let now = T0;

beforeEach(async () => {
  resetScope({ 'x-forwarded-for': '192.0.2.50' });
  await writeTx((tx) => tx.delete(schema.signInFailures));
  now = T0;
  setSignInClock(() => now);
});
afterEach(() => {
  setSignInClock();
  vi.unstubAllEnvs();
});

const form = (fields: Record<string, string>) => {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
};

/** Where a next/navigation redirect() was sending the browser. */
async function redirectOf(action: Promise<unknown>): Promise<string> {
  const err = await action.then(
    () => null,
    (e: unknown) => e,
  );
  const digest = (err as { digest?: string } | null)?.digest ?? '';
  expect(digest.startsWith('NEXT_REDIRECT;'), `expected a redirect, got ${String(err)}`).toBe(true);
  return digest.split(';')[2]!;
}

const sessionCookie = () => [...scope.jar].map(([k, v]) => `${k}=${v}`).join('; ');
const meStatus = async (cookie: string) => (await me(new Request('http://localhost/api/v1/me', { headers: { cookie } }), undefined)).status;

/** Sign in as the browser does, through the sign-in form's post; the session cookie lands in the jar. */
async function signInWithForm(email: string) {
  const answer = await post('sign-in', { email, password: PASSWORD }, { 'x-forwarded-for': '192.0.2.50' });
  expect(answer.location).toBe('/agents');
  // What the server actions then read: this browser's request.
  scope.headers = new Headers({ 'x-forwarded-for': '192.0.2.50' });
}

describe('signOutAction and signOutEverywhereAction', () => {
  it('sign out clears this browser and goes to /sign-in', async () => {
    const ann = await makeUser('ann');
    await signInWithForm(ann.email);
    expect(await redirectOf(signOutAction())).toBe('/sign-in');
    expect(scope.jar.size).toBe(0);
  });

  it('sign out everywhere ends the sessions of other browsers too, and revokes every API token', async () => {
    const ann = await makeUser('ann');
    const { signInOverHttp } = await import('./support/http-auth');
    const otherBrowser = await signInOverHttp({ email: ann.email, password: PASSWORD, address: '198.51.100.77' });
    await signInWithForm(ann.email);
    const thisBrowser = sessionCookie();
    expect(await meStatus(thisBrowser)).toBe(200);
    expect(await meStatus(otherBrowser)).toBe(200);

    expect(await redirectOf(signOutEverywhereAction())).toBe('/sign-in');

    expect(await meStatus(thisBrowser)).toBe(401);
    expect(await meStatus(otherBrowser)).toBe(401);
    // Must not happen: a token made before "sign out everywhere" still working after it.
    expect((await me(new Request('http://localhost/api/v1/me', { headers: ann.auth }), undefined)).status).toBe(401);
  });

  it('sign out everywhere refuses without a session', async () => {
    await expect(signOutEverywhereAction()).rejects.toMatchObject({ status: 401 });
  });
});

describe('changePasswordAction (Settings)', () => {
  const NEW_PASSWORD = 'a brand new passphrase';
  const change = (fields: Record<string, string>) =>
    changePasswordAction({}, form({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD, confirmPassword: NEW_PASSWORD, ...fields }));

  it('changes the password, signs other browsers out and keeps this one signed in', async () => {
    const ann = await makeUser('ann');
    const { signInOverHttp } = await import('./support/http-auth');
    const otherBrowser = await signInOverHttp({ email: ann.email, password: PASSWORD, address: '198.51.100.78' });
    await signInWithForm(ann.email);
    const before = sessionCookie();

    expect(await redirectOf(change({}))).toBe('/settings?password=changed');
    expect(await meStatus(otherBrowser)).toBe(401);
    expect(await meStatus(before)).toBe(401); // the old cookie of this browser is replaced…
    expect(await meStatus(sessionCookie())).toBe(200); // …by a new one under the new session version
    // Must not happen: a token made before the password change authenticating after it (ADR 041).
    expect((await me(new Request('http://localhost/api/v1/me', { headers: ann.auth }), undefined)).status).toBe(401);
  });

  it('answers field errors: wrong current password (counted), new passwords that differ, a short one', async () => {
    const ann = await makeUser('ann');
    await signInWithForm(ann.email);
    const hash = (await findUserByEmail(ann.email))!.passwordHash;
    expect(await change({ currentPassword: 'guess' })).toEqual({ fields: { currentPassword: 'Wrong password' } });
    // Counted against this account from this address (which signed in, so is known: not the account-wide ceiling, ADR 041).
    expect((await getDb().select().from(schema.signInFailures)).map((r) => r.key)).toContainEqual(expect.stringMatching(`^signin:pair:${ann.email}\\|`));
    expect(await change({ confirmPassword: `${NEW_PASSWORD}!` })).toEqual({ fields: { confirmPassword: 'The two new passwords differ' } });
    expect(await change({ newPassword: 'short', confirmPassword: 'short' })).toEqual({
      fields: { newPassword: 'Must be at least 8 characters' },
    });
    expect((await findUserByEmail(ann.email))!.passwordHash).toBe(hash);
    expect(await meStatus(sessionCookie())).toBe(200);
  });

  it('refuses without a session', async () => {
    await expect(change({})).rejects.toMatchObject({ status: 401 });
  });
});
