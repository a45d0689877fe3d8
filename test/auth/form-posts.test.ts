import './support/next-auth';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The account forms' posts (app/(auth)/sign-in/submit and sign-up/submit, server/auth/form-post.ts): a plain HTML
 * form, no JavaScript. The route handlers run outside Next here; next/headers and next-auth's request-scoped
 * helpers are stood in for by support/request-scope.ts (the same steps over next-auth's real HTTP handlers).
 */
vi.mock('next/headers', async () => (await import('./support/request-scope')).nextHeadersMock());
vi.mock('@/server/auth/config', async (importOriginal) =>
  (await import('./support/request-scope')).authConfigMock(await importOriginal()),
);

const { scope, resetScope } = await import('./support/request-scope');
const { ORIGIN, formRequest, post, send } = await import('./support/form-post');
const { AUTH_FLASH_COOKIE, AUTH_FLASH_MAX_AGE_SECONDS } = await import('@/lib/auth/form-flash');
const { LIMITS } = await import('@/lib/limits');
const { FORM_BODY_MAX_BYTES } = await import('@/server/auth/form-post');
const { createInvitation } = await import('@/server/auth/invitations');
const { GET: me } = await import('@/app/api/v1/me/route');
const { setSignInClock } = await import('@/server/auth/rate-limit');
const { findUserByEmail } = await import('@/server/auth/users');
const { getDb, schema, writeTx } = await import('@/server/db');
const { makeUser } = await import('../support/users');

const PASSWORD = 'correct horse battery';
const FORM_TYPE = 'application/x-www-form-urlencoded';
const T0 = Date.parse('2031-01-01T00:00:00Z');
let now = T0;
/** The client's address as a proxy in front names it (TRUST_PROXY=1). */
let from = { 'x-forwarded-for': '192.0.2.50' };

beforeEach(async () => {
  vi.stubEnv('TRUST_PROXY', '1');
  from = { 'x-forwarded-for': '192.0.2.50' };
  resetScope();
  await writeTx((tx) => tx.delete(schema.signInFailures));
  now = T0;
  setSignInClock(() => now);
});
afterEach(() => {
  setSignInClock();
  vi.unstubAllEnvs();
});

const signIn = (fields: Record<string, string>, headers: Record<string, string> = {}) => post('sign-in', fields, { ...from, ...headers });
const signUp = (fields: Record<string, string>, headers: Record<string, string> = {}) => post('sign-up', fields, { ...from, ...headers });
const sessionCookie = () => [...scope.jar].map(([k, v]) => `${k}=${v}`).join('; ');
const meStatus = async (cookie: string) => (await me(new Request(`${ORIGIN}/api/v1/me`, { headers: { cookie } }), undefined)).status;
const failuresCounted = async () => (await getDb().select().from(schema.signInFailures)).length;
const newEmail = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;

describe('POST /sign-in/submit', () => {
  it('signs in: 303 to /agents with the session cookie set, and any earlier flash cleared', async () => {
    const ann = await makeUser('ann');
    const answer = await signIn({ email: ann.email, password: PASSWORD });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/agents');
    expect(answer.res.headers.get('cache-control')).toBe('no-store');
    expect(await meStatus(sessionCookie())).toBe(200);
    expect(answer.flashCookie).toMatch(new RegExp(`^${AUTH_FLASH_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax$`));
  });

  it('returns to a same-origin callback path, and ignores anything else', async () => {
    const ann = await makeUser('ann');
    const go = async (callbackUrl: string) => (await signIn({ email: ann.email, password: PASSWORD, callbackUrl })).location;
    expect(await go('/conversations/abc?tab=runs')).toBe('/conversations/abc?tab=runs');
    expect(await go('https://evil.example/steal')).toBe('/agents');
    expect(await go('//evil.example/steal')).toBe('/agents');
    expect(await go('/\\evil.example')).toBe('/agents');
    expect(await go('javascript:alert(1)')).toBe('/agents');
  });

  it('says "Invalid email or password" for a wrong password and for an unknown email alike, keeping the email', async () => {
    const ann = await makeUser('ann');
    const wrongPassword = await signIn({ email: ann.email, password: 'not it at all' });
    const unknownEmail = await signIn({ email: 'nobody@example.test', password: PASSWORD });
    for (const answer of [wrongPassword, unknownEmail]) {
      expect(answer.status).toBe(303);
      expect(answer.location).toBe('/sign-in');
    }
    expect(wrongPassword.flash).toEqual({ message: 'Invalid email or password', values: { email: ann.email } });
    expect(unknownEmail.flash).toEqual({ message: 'Invalid email or password', values: { email: 'nobody@example.test' } });
    expect(scope.jar.size).toBe(0);
    // The flash cookie: short-lived, not readable by scripts, not sent by other sites' posts; never the password.
    expect(wrongPassword.flashCookie).toMatch(
      new RegExp(`^${AUTH_FLASH_COOKIE}=[A-Za-z0-9_-]+; Path=/; Max-Age=${AUTH_FLASH_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax$`),
    );
    const raw = Buffer.from(wrongPassword.flashCookie!.split(';')[0]!.split('=')[1]!, 'base64url').toString('utf8');
    expect(raw).not.toContain('not it at all');
  });

  it('goes back to the sign-in page with the same safe callback path, and without an unsafe one', async () => {
    const ann = await makeUser('ann');
    const kept = await signIn({ email: ann.email, password: 'wrong', callbackUrl: '/teams/t1?tab=runs' });
    expect(kept.location).toBe(`/sign-in?callbackUrl=${encodeURIComponent('/teams/t1?tab=runs')}`);
    const dropped = await signIn({ email: ann.email, password: 'wrong', callbackUrl: 'https://evil.example/' });
    expect(dropped.location).toBe('/sign-in');
  });

  it('shows field errors for empty or malformed input without counting a failure', async () => {
    const answer = await signIn({ email: 'not an email', password: '' });
    expect(answer.location).toBe('/sign-in');
    expect(answer.flash).toEqual({
      fields: { email: 'Enter a valid email address', password: 'Enter your password' },
      values: { email: 'not an email' },
    });
    expect(await failuresCounted()).toBe(0);
  });

  it('after five failures says how many seconds to wait, even for the right password', async () => {
    const ann = await makeUser('ann');
    for (let i = 0; i < 5; i++) {
      now = T0 + i * 1_000;
      expect((await signIn({ email: ann.email, password: `wrong ${i}` })).flash?.message).toBe('Invalid email or password');
    }
    now = T0 + 20_000;
    expect((await signIn({ email: ann.email, password: PASSWORD })).flash).toEqual({
      message: 'Too many failed sign-ins. Try again in 40 seconds.',
      values: { email: ann.email },
    });
    expect(scope.jar.size).toBe(0);
    now = T0 + 60_000;
    expect((await signIn({ email: ann.email, password: PASSWORD })).location).toBe('/agents');
  });

  it('shares its counters with the HTTP door: failures over HTTP block the form from the same address', async () => {
    const ann = await makeUser('ann');
    const { postCredentials } = await import('./support/http-auth');
    for (let i = 0; i < 5; i++) await postCredentials({ email: ann.email, password: `wrong ${i}`, address: '192.0.2.50' });
    expect((await signIn({ email: ann.email, password: PASSWORD })).flash?.message).toBe('Too many failed sign-ins. Try again in 60 seconds.');
    // The owner elsewhere is not locked out by those failures.
    from = { 'x-forwarded-for': '203.0.113.50' };
    expect((await signIn({ email: ann.email, password: PASSWORD })).location).toBe('/agents');
  });

  it('marks the flash cookie Secure when the browser came over https (directly or through a proxy that says so)', async () => {
    const viaProxy = await signIn({ email: 'x@example.test', password: '' }, { 'x-forwarded-proto': 'https' });
    expect(viaProxy.flashCookie).toMatch(/; Secure$/);
    const direct = await send(
      'sign-in',
      new Request('https://localhost/sign-in/submit', {
        method: 'POST',
        headers: { origin: 'https://localhost', 'content-type': FORM_TYPE, ...from },
        body: 'email=x%40example.test&password=',
      }),
    );
    expect(direct.status).toBe(303);
    expect(direct.flashCookie).toMatch(/; Secure$/);
  });
});

describe('POST /sign-up/submit', () => {
  // Other tests' accounts exist, so sign-up is closed unless opened (registration.test.ts covers the rules).
  beforeEach(() => void vi.stubEnv('ALLOW_SIGNUP', 'true'));

  it('creates the account, signs it in and lands on /agents', async () => {
    const email = newEmail('new');
    const answer = await signUp({ email: `  ${email.toUpperCase()} `, password: 'twelve chars', name: ' Ann ' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/agents');
    const user = await findUserByEmail(email);
    expect(user).toMatchObject({ email, name: 'Ann' });
    const res = await me(new Request(`${ORIGIN}/api/v1/me`, { headers: { cookie: sessionCookie() } }), undefined);
    expect(await res.json()).toEqual({ user: { id: user!.id, email, name: 'Ann' } });
  });

  it('reports a taken email next to the field, keeping what was typed', async () => {
    const ann = await makeUser('ann');
    const answer = await signUp({ email: ann.email.toUpperCase(), password: 'whatever123', name: 'Other' });
    expect(answer.location).toBe('/sign-up');
    expect(answer.flash).toEqual({
      fields: { email: 'An account with this email already exists' },
      values: { email: ann.email.toUpperCase(), name: 'Other' },
    });
    expect(scope.jar.size).toBe(0);
  });

  it('shows field errors for a short password and a bad email', async () => {
    const answer = await signUp({ email: 'nope', password: '1234567', name: '' });
    expect(answer.flash?.fields).toEqual({ email: 'Enter a valid email address', password: 'Must be at least 8 characters' });
    expect(await findUserByEmail('nope')).toBeUndefined();
  });

  it('refuses when ALLOW_SIGNUP=false', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'false');
    const email = newEmail('blocked');
    const answer = await signUp({ email, password: 'long enough', name: '' });
    expect(answer.location).toBe('/sign-up');
    expect(answer.flash?.message).toBe('Sign-up is closed on this server. Ask its admin for an invitation link.');
    expect(await findUserByEmail(email)).toBeUndefined();
    expect(scope.jar.size).toBe(0);
  });

  it('goes back to the page with the invitation code when the invited attempt is refused', async () => {
    vi.stubEnv('ALLOW_SIGNUP', 'false');
    const admin = await makeUser('admin');
    const invitation = await createInvitation(admin.id, { expiresInDays: 7 });
    const answer = await signUp({ email: 'bad', password: PASSWORD, name: '', invite: invitation.code });
    expect(answer.location).toBe(`/sign-up?invite=${encodeURIComponent(invitation.code)}`);
    expect(answer.flash?.fields?.email).toBe('Enter a valid email address');
    // A value no code can be is not carried back.
    const long = await signUp({ email: 'bad', password: PASSWORD, name: '', invite: 'x'.repeat(201) });
    expect(long.location).toBe('/sign-up');
  });

  it.each([
    ['CJK', '名'],
    ['emoji', '😀'],
  ])('keeps a %s name at the 80-character limit and one past in the flash, whole', async (_, char) => {
    const taken = (await makeUser('taken')).email;
    const atLimit = char.repeat(LIMITS.user.name.maxChars);
    const answer = await signUp({ email: taken, password: PASSWORD, name: atLimit });
    expect(answer.flash).toEqual({ fields: { email: 'An account with this email already exists' }, values: { email: taken, name: atLimit } });

    const onePast = char.repeat(LIMITS.user.name.maxChars + 1);
    const refused = await signUp({ email: newEmail('past'), password: PASSWORD, name: onePast });
    expect(refused.flash?.fields?.name).toBe(`Must be at most ${LIMITS.user.name.maxChars} characters (now ${LIMITS.user.name.maxChars + 1})`);
    expect(refused.flash?.values?.name).toBe(onePast);
  });
});

describe('what the form posts refuse', () => {
  beforeEach(() => void vi.stubEnv('ALLOW_SIGNUP', 'true'));

  const formBody = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  it('a post from another site: 403 cross_site, before the body is read; no account made, no failure counted, no session', async () => {
    const ann = await makeUser('ann');
    for (const origin of ['https://evil.example', 'http://localhost:3001', 'null']) {
      const inReq = formRequest('sign-in', formBody({ email: ann.email, password: 'wrong' }), { origin, 'content-type': FORM_TYPE, ...from });
      const answer = await send('sign-in', inReq);
      expect(answer.status).toBe(403);
      expect(await answer.res.json()).toMatchObject({ error: { code: 'cross_site' } });
      expect(inReq.bodyUsed).toBe(false);

      const email = newEmail('forged');
      const upReq = formRequest('sign-up', formBody({ email, password: PASSWORD, name: '' }), { origin, 'content-type': FORM_TYPE, ...from });
      expect((await send('sign-up', upReq)).status).toBe(403);
      expect(await findUserByEmail(email)).toBeUndefined();
    }
    // Must not happen: another site's post counting a failure against the account, or signing anyone in.
    expect(await failuresCounted()).toBe(0);
    expect(scope.jar.size).toBe(0);
  });

  it('without an Origin, only Sec-Fetch-Site: same-origin passes', async () => {
    const ann = await makeUser('ann');
    const body = formBody({ email: ann.email, password: PASSWORD });
    for (const site of ['cross-site', 'same-site', 'none', null]) {
      const headers = { 'content-type': FORM_TYPE, ...from, ...(site ? { 'sec-fetch-site': site } : {}) };
      const answer = await send('sign-in', formRequest('sign-in', body, headers));
      expect(answer.status, String(site)).toBe(403);
    }
    expect(scope.jar.size).toBe(0);
    const same = await send('sign-in', formRequest('sign-in', body, { 'content-type': FORM_TYPE, 'sec-fetch-site': 'same-origin', ...from }));
    expect(same.location).toBe('/agents');
  });

  it(`reads at most ${FORM_BODY_MAX_BYTES} bytes: a body at the cap is the form, one byte past is 413 with nothing counted`, async () => {
    const ann = await makeUser('ann');
    const sized = (bytes: number) => {
      const base = formBody({ email: ann.email, password: 'wrong' }) + '&pad=';
      return base + 'x'.repeat(bytes - base.length);
    };
    const atCap = await signInRaw(sized(FORM_BODY_MAX_BYTES));
    expect(atCap.status).toBe(303);
    expect(atCap.flash?.message).toBe('Invalid email or password');
    await writeTx((tx) => tx.delete(schema.signInFailures));

    const past = await signInRaw(sized(FORM_BODY_MAX_BYTES + 1));
    expect(past.status).toBe(413);
    expect(await past.res.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    // Without a declared length (chunked), counted as it streams.
    const bytes = new TextEncoder().encode(sized(FORM_BODY_MAX_BYTES + 1));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.slice(0, 8_000));
        controller.enqueue(bytes.slice(8_000));
        controller.close();
      },
    });
    expect((await send('sign-in', formRequest('sign-in', stream, { origin: ORIGIN, 'content-type': FORM_TYPE, ...from }))).status).toBe(413);
    expect(await failuresCounted()).toBe(0);
  });

  it('another body type (JSON, multipart, text, none): 415, and nothing signed in, counted or created', async () => {
    const ann = await makeUser('ann');
    const email = newEmail('typed');
    const multipart = new FormData();
    multipart.set('email', email);
    multipart.set('password', PASSWORD);
    const cases: Array<[string, BodyInit, Record<string, string>]> = [
      ['json', JSON.stringify({ email: ann.email, password: PASSWORD }), { 'content-type': 'application/json' }],
      ['text', formBody({ email: ann.email, password: PASSWORD }), { 'content-type': 'text/plain' }],
      ['none', new TextEncoder().encode(formBody({ email: ann.email, password: PASSWORD })), {}],
    ];
    for (const [label, body, type] of cases) {
      const answer = await send('sign-in', formRequest('sign-in', body, { origin: ORIGIN, ...from, ...type }));
      expect(answer.status, label).toBe(415);
      expect(await answer.res.json()).toMatchObject({ error: { code: 'unsupported_media_type' } });
    }
    // A multipart body (its own Content-Type with the boundary, as the runtime sets it for FormData).
    const upReq = new Request(`${ORIGIN}/sign-up/submit`, { method: 'POST', headers: { origin: ORIGIN, ...from }, body: multipart });
    expect(upReq.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect((await send('sign-up', upReq)).status).toBe(415);
    // Must not happen: a body the form never sends signing in, counting a failure or creating an account.
    expect(scope.jar.size).toBe(0);
    expect(await failuresCounted()).toBe(0);
    expect(await findUserByEmail(email)).toBeUndefined();
  });

  it('GET and the other methods: 405 with Allow: POST, OPTIONS', async () => {
    for (const form of ['sign-in', 'sign-up'] as const) {
      for (const method of ['GET', 'PUT']) {
        const answer = await send(form, formRequest(form, null, {}, method));
        expect(answer.status, `${method} ${form}`).toBe(405);
        expect(answer.res.headers.get('allow')).toBe('POST, OPTIONS');
        expect(await answer.res.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
      }
    }
  });
});

function signInRaw(body: string) {
  return send('sign-in', formRequest('sign-in', body, { origin: ORIGIN, 'content-type': FORM_TYPE, ...from }));
}
