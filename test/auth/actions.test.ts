import './support/next-auth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The server actions run outside Next here, so the request-scoped pieces are stood in for:
 * - next/headers: the request's headers and a cookie jar;
 * - next-auth's signIn/signOut/auth helpers: replaced by the same steps over next-auth's real HTTP handlers
 *   (csrf + credentials callback, session endpoint), so authorize, the rate limiter and the jwt callback are real.
 */
const scope = vi.hoisted(() => ({ headers: new Headers(), jar: new Map<string, string>() }));

vi.mock('next/headers', () => ({
  headers: async () => scope.headers,
  cookies: async () => ({
    get: (name: string) => (scope.jar.has(name) ? { name, value: scope.jar.get(name) } : undefined),
    set: (name: string, value: string) => void scope.jar.set(name, value),
    delete: (name: string) => void scope.jar.delete(name),
  }),
}));

vi.mock('@/server/auth/config', async (importOriginal) => {
  const real = await importOriginal<typeof import('@/server/auth/config')>();
  const { CredentialsSignin } = await import('next-auth');
  const { redirect } = await import('next/navigation');
  const http = await import('./support/http-auth');
  const jarCookie = () => [...scope.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    ...real,
    async signIn(_provider: string, options: { email: string; password: string; redirectTo: string }) {
      const res = await http.postCredentials({
        email: options.email,
        password: options.password,
        callbackUrl: options.redirectTo,
        address: scope.headers.get('x-forwarded-for') ?? undefined,
      });
      const location = new URL(res.headers.get('location') ?? 'http://localhost/');
      if (location.searchParams.get('error') === 'CredentialsSignin') {
        // What next-auth's signIn throws in a server action: the error authorize threw.
        const err = new CredentialsSignin();
        err.code = location.searchParams.get('code') ?? 'credentials';
        throw err;
      }
      const [name, value] = http.sessionCookieFrom(res)!.split(/=(.*)/s);
      scope.jar.set(name!, value!);
      return location.toString();
    },
    async signOut(options: { redirectTo: string }) {
      scope.jar.clear();
      redirect(options.redirectTo);
    },
    async auth() {
      return scope.jar.size ? ((await http.sessionFor(jarCookie())) as Awaited<ReturnType<typeof real.auth>>) : null;
    },
  };
});

const { signInAction, signOutAction, signOutEverywhereAction, signUpAction } = await import('@/app/actions/auth');
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
  scope.headers = new Headers({ 'x-forwarded-for': '192.0.2.50' });
  scope.jar.clear();
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

describe('signInAction', () => {
  it('signs in, sets the session cookie and goes to /agents', async () => {
    const ann = await makeUser('ann');
    expect(await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })))).toBe('/agents');
    expect(await meStatus(sessionCookie())).toBe(200);
  });

  it('returns to a same-origin callback path, and ignores anything else', async () => {
    const ann = await makeUser('ann');
    const go = (callbackUrl: string) => redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD, callbackUrl })));
    expect(await go('/conversations/abc?tab=runs')).toBe('/conversations/abc?tab=runs');
    expect(await go('https://evil.example/steal')).toBe('/agents');
    expect(await go('//evil.example/steal')).toBe('/agents');
    expect(await go('/\\evil.example')).toBe('/agents');
    expect(await go('javascript:alert(1)')).toBe('/agents');
  });

  it('says "Invalid email or password" for a wrong password and for an unknown email alike, keeping the email', async () => {
    const ann = await makeUser('ann');
    const wrongPassword = await signInAction({}, form({ email: ann.email, password: 'not it at all' }));
    const unknownEmail = await signInAction({}, form({ email: 'nobody@example.test', password: PASSWORD }));
    expect(wrongPassword).toEqual({ message: 'Invalid email or password', values: { email: ann.email } });
    expect(unknownEmail).toEqual({ message: 'Invalid email or password', values: { email: 'nobody@example.test' } });
    expect(scope.jar.size).toBe(0);
  });

  it('shows field errors for empty or malformed input without counting a failure', async () => {
    const state = await signInAction({}, form({ email: 'not an email', password: '' }));
    expect(state).toEqual({
      fields: { email: 'Enter a valid email address', password: 'Enter your password' },
      values: { email: 'not an email' },
    });
    expect(await getDb().select().from(schema.signInFailures)).toHaveLength(0);
  });

  it('after five failures says how many seconds to wait, even for the right password', async () => {
    const ann = await makeUser('ann');
    for (let i = 0; i < 5; i++) {
      now = T0 + i * 1_000;
      expect((await signInAction({}, form({ email: ann.email, password: `wrong ${i}` }))).message).toBe('Invalid email or password');
    }
    now = T0 + 20_000;
    expect(await signInAction({}, form({ email: ann.email, password: PASSWORD }))).toEqual({
      message: 'Too many failed sign-ins. Try again in 40 seconds.',
      values: { email: ann.email },
    });
    expect(scope.jar.size).toBe(0);
    now = T0 + 60_000;
    expect(await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })))).toBe('/agents');
  });

  it('shares its counters with the HTTP door: failures over HTTP block the action from the same address', async () => {
    vi.stubEnv('TRUST_PROXY', '1');
    const ann = await makeUser('ann');
    const { postCredentials } = await import('./support/http-auth');
    for (let i = 0; i < 5; i++) await postCredentials({ email: ann.email, password: `wrong ${i}`, address: '192.0.2.50' });
    expect((await signInAction({}, form({ email: ann.email, password: PASSWORD }))).message).toBe(
      'Too many failed sign-ins. Try again in 60 seconds.',
    );
    // The owner elsewhere is not locked out by those failures.
    scope.headers = new Headers({ 'x-forwarded-for': '203.0.113.50' });
    expect(await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })))).toBe('/agents');
  });
});

describe('signUpAction', () => {
  // Other tests' accounts exist, so sign-up is closed unless opened (registration.test.ts covers the rules).
  beforeEach(() => void vi.stubEnv('ALLOW_SIGNUP', 'true'));

  it('creates the account, signs it in and lands on /agents', async () => {
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.test`;
    expect(await redirectOf(signUpAction({}, form({ email: `  ${email.toUpperCase()} `, password: 'twelve chars', name: ' Ann ' })))).toBe('/agents');
    const user = await findUserByEmail(email);
    expect(user).toMatchObject({ email, name: 'Ann' });
    const res = await me(new Request('http://localhost/api/v1/me', { headers: { cookie: sessionCookie() } }), undefined);
    expect(await res.json()).toEqual({ user: { id: user!.id, email, name: 'Ann' } });
  });

  it('reports a taken email next to the field, keeping what was typed', async () => {
    const ann = await makeUser('ann');
    const state = await signUpAction({}, form({ email: ann.email.toUpperCase(), password: 'whatever123', name: 'Other' }));
    expect(state).toEqual({
      fields: { email: 'An account with this email already exists' },
      values: { email: ann.email.toUpperCase(), name: 'Other' },
    });
  });

  it('shows field errors for a short password and a bad email', async () => {
    const state = await signUpAction({}, form({ email: 'nope', password: '1234567', name: '' }));
    expect(state.fields).toEqual({ email: 'Enter a valid email address', password: 'Must be at least 8 characters' });
    expect(await findUserByEmail('nope')).toBeUndefined();
  });

  it('refuses when ALLOW_SIGNUP=false', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'false');
    const email = `blocked-${crypto.randomUUID().slice(0, 8)}@example.test`;
    const state = await signUpAction({}, form({ email, password: 'long enough', name: '' }));
    expect(state.message).toBe('Sign-up is closed on this server. Ask its admin for an invitation link.');
    expect(await findUserByEmail(email)).toBeUndefined();
    expect(scope.jar.size).toBe(0);
  });
});

describe('signOutAction and signOutEverywhereAction', () => {
  it('sign out clears this browser and goes to /sign-in', async () => {
    const ann = await makeUser('ann');
    await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })));
    expect(await redirectOf(signOutAction())).toBe('/sign-in');
    expect(scope.jar.size).toBe(0);
  });

  it('sign out everywhere ends the sessions of other browsers too, and revokes every API token', async () => {
    const ann = await makeUser('ann');
    const { signInOverHttp } = await import('./support/http-auth');
    const otherBrowser = await signInOverHttp({ email: ann.email, password: PASSWORD, address: '198.51.100.77' });
    await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })));
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
    await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })));
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
    await redirectOf(signInAction({}, form({ email: ann.email, password: PASSWORD })));
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
