import './support/next-auth';
import { describe, expect, it } from 'vitest';
import { GET as me } from '@/app/api/v1/me/route';
import { createApiToken, revokeApiToken } from '@/server/auth/tokens';
import { bumpSessionVersion } from '@/server/auth/users';
import { makeUser } from '../support/users';
import { postCredentials, sessionCookieFrom, sessionFor, signInOverHttp } from './support/http-auth';

const PASSWORD = 'correct horse battery';

const meWith = (headers: Record<string, string>, origin = 'http://localhost') =>
  me(new Request(`${origin}/api/v1/me`, { headers }), undefined);

describe('GET /api/v1/me', () => {
  it('answers 401 without credentials', async () => {
    const res = await meWith({});
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: 'Sign in or send a valid API token' } });
  });

  it('knows the user behind a Bearer token, and stops when the token is revoked', async () => {
    const ann = await makeUser('ann');
    const res = await meWith(ann.auth);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: { id: ann.id, email: ann.email, name: 'ann' } });

    const { token, info } = await createApiToken(ann.id, 'second');
    expect((await meWith({ authorization: `Bearer ${token}` })).status).toBe(200);
    await revokeApiToken(ann.id, info.id);
    expect((await meWith({ authorization: `Bearer ${token}` })).status).toBe(401);
    // Other tokens are untouched.
    expect((await meWith(ann.auth)).status).toBe(200);
  });

  it('answers 401 for unknown, malformed or empty bearer tokens', async () => {
    for (const authorization of ['Bearer ens_notarealtoken', 'Bearer', 'Basic dXNlcjpwYXNz', 'Bearer a b', 'ens_abc']) {
      expect((await meWith({ authorization })).status, authorization).toBe(401);
    }
  });

  it('knows the user behind a session cookie from next-auth', async () => {
    const ann = await makeUser('ann');
    const cookie = await signInOverHttp({ email: ann.email, password: PASSWORD });
    const res = await meWith({ cookie });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(ann.id);
  });

  it('uses the Bearer token, not the cookie, when a request carries both', async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const cookie = await signInOverHttp({ email: ann.email, password: PASSWORD });
    const asBob = await meWith({ cookie, ...bob.auth });
    expect(((await asBob.json()) as { user: { id: string } }).user.id).toBe(bob.id);
    expect((await meWith({ cookie, authorization: 'Bearer ens_revoked_or_unknown' })).status).toBe(401);
  });

  it('answers 401 for a tampered or foreign session cookie', async () => {
    const ann = await makeUser('ann');
    const cookie = await signInOverHttp({ email: ann.email, password: PASSWORD });
    const tampered = cookie.slice(0, -4) + (cookie.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await meWith({ cookie: tampered })).status).toBe(401);
    expect((await meWith({ cookie: 'authjs.session-token=not-a-jwt' })).status).toBe(401);
  });

  it('accepts the __Secure- cookie a sign-in over https sets', async () => {
    const ann = await makeUser('ann');
    const res = await postCredentials({ email: ann.email, password: PASSWORD, origin: 'https://localhost' });
    const cookie = sessionCookieFrom(res);
    expect(cookie).toMatch(/^__Secure-authjs\.session-token=/);
    expect((await meWith({ cookie: cookie! }, 'https://localhost')).status).toBe(200);
  });
});

describe('sign out everywhere (session version)', () => {
  it('makes every existing session cookie stop authorizing, while API tokens keep working', async () => {
    const ann = await makeUser('ann');
    const laptop = await signInOverHttp({ email: ann.email, password: PASSWORD, address: '192.0.2.1' });
    const phone = await signInOverHttp({ email: ann.email, password: PASSWORD, address: '192.0.2.2' });
    expect((await meWith({ cookie: laptop })).status).toBe(200);
    expect(await sessionFor(phone)).toMatchObject({ user: { id: ann.id } });

    await bumpSessionVersion(ann.id);

    expect((await meWith({ cookie: laptop })).status).toBe(401);
    expect((await meWith({ cookie: phone })).status).toBe(401);
    // next-auth's own session endpoint (what server components use) agrees: no session.
    expect(await sessionFor(laptop)).toBeNull();
    expect((await meWith(ann.auth)).status).toBe(200);

    // Signing in again gives a session under the new version.
    const fresh = await signInOverHttp({ email: ann.email, password: PASSWORD });
    expect((await meWith({ cookie: fresh })).status).toBe(200);
  });

  it("does not touch another user's sessions", async () => {
    const ann = await makeUser('ann');
    const bob = await makeUser('bob');
    const bobCookie = await signInOverHttp({ email: bob.email, password: PASSWORD });
    await bumpSessionVersion(ann.id);
    expect((await meWith({ cookie: bobCookie })).status).toBe(200);
  });
});
