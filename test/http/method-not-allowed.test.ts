import { describe, expect, it } from 'vitest';
import { requireUser } from '@/server/auth/require-user';
import { notFound, unauthorized } from '@/server/http/errors';
import { allowOf, noCredentials, otherMethods, type Gate } from '@/server/http/method-not-allowed';
import { makeUser } from '../support/users';

// server/http/method-not-allowed.ts: what a route file exports for the methods it does not take. (That every route
// file uses it, truthfully, is test/api/method-not-allowed-routes.test.ts; the real server, e2e/api-errors.spec.ts.)

const real = async () => new Response('real');
const request = (method: string, path = '/api/v1/things', headers: Record<string, string> = {}) =>
  new Request(`http://localhost${path}`, { method, headers });

describe('otherMethods', () => {
  it('makes exactly the methods not taken, HEAD only when there is no GET (Next answers HEAD with GET), and OPTIONS', () => {
    expect(Object.keys(otherMethods({ GET: real, POST: real }, noCredentials)).sort()).toEqual(['DELETE', 'OPTIONS', 'PATCH', 'PUT']);
    expect(Object.keys(otherMethods({ POST: real }, noCredentials)).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT']);
    expect(Object.keys(otherMethods({ GET: real, POST: real, PUT: real, PATCH: real, DELETE: real }, noCredentials))).toEqual(['OPTIONS']);
  });

  it('answers 405 method_not_allowed in JSON, with Allow listing what the route takes (HEAD with GET, and OPTIONS)', async () => {
    const { PUT, POST } = otherMethods({ GET: real, PATCH: real, DELETE: real }, noCredentials);
    for (const [method, handler] of [['PUT', PUT], ['POST', POST]] as const) {
      const res = await handler(request(method, '/api/v1/things/abc'));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        error: { code: 'method_not_allowed', message: `${method} /api/v1/things/abc takes GET, PATCH, DELETE` },
      });
    }
  });

  it('without a GET, HEAD is a 405 too and Allow does not name it', async () => {
    const { HEAD, GET } = otherMethods({ POST: real }, noCredentials);
    for (const [method, handler] of [['HEAD', HEAD], ['GET', GET]] as const) {
      const res = await handler(request(method));
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    }
  });

  it('answers OPTIONS 204 with the same Allow and no body (Next would list its 405 exports as allowed)', async () => {
    const { OPTIONS } = otherMethods({ GET: real, POST: real }, noCredentials);
    const res = await OPTIONS(request('OPTIONS'));
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(await res.text()).toBe('');
  });

  it("runs the route's gate first: its error is the answer, on the 405s and OPTIONS alike, with no Allow", async () => {
    for (const [error, status] of [[unauthorized(), 401], [notFound(), 404]] as const) {
      const gate: Gate = async () => {
        throw error;
      };
      const { PUT, OPTIONS } = otherMethods({ GET: real }, gate);
      for (const res of [await PUT(request('PUT')), await OPTIONS(request('OPTIONS'))]) {
        expect(res.status).toBe(status);
        expect(res.headers.get('allow')).toBeNull();
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe(error.code);
      }
    }
  });

  it('with requireUser as the gate: 401 without credentials, 405 with a token, 403 cross_site for a foreign cookie write', async () => {
    const { DELETE } = otherMethods({ GET: real }, requireUser);
    expect((await DELETE(request('DELETE'))).status).toBe(401);
    const { auth } = await makeUser('method-not-allowed');
    expect((await DELETE(request('DELETE', '/api/v1/things', auth))).status).toBe(405);
    // The cross-site check runs where the cookie is read, before the cookie is even decoded.
    const foreign = await DELETE(request('DELETE', '/api/v1/things', { cookie: 'authjs.session-token=x', origin: 'https://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('cross_site');
  });

  it('echoes at most 200 characters of the path, as the catch-all does', async () => {
    const { PUT } = otherMethods({ GET: real }, noCredentials);
    const path = `/api/${'a'.repeat(300)}`;
    const { error } = (await (await PUT(request('PUT', path))).json()) as { error: { message: string } };
    expect(error.message).toBe(`PUT ${path.slice(0, 200)}… takes GET`);
  });

  it('marks its 405 answers (with their Allow) so that tests can tell them from real handlers; OPTIONS is not one', () => {
    const { PUT, OPTIONS } = otherMethods({ GET: real, POST: real }, noCredentials);
    expect(allowOf(PUT)).toEqual(['GET', 'HEAD', 'POST', 'OPTIONS']);
    expect(allowOf(OPTIONS)).toBeNull();
    expect(allowOf(real)).toBeNull();
    expect(allowOf(undefined)).toBeNull();
  });

  it('has types that refuse a method both taken and made, or HEAD beside a GET (tsc checks this file)', () => {
    // @ts-expect-error GET is taken, so otherMethods makes none: a file cannot export it twice.
    const { GET } = otherMethods({ GET: real }, noCredentials);
    // @ts-expect-error with a GET, Next answers HEAD itself.
    const { HEAD } = otherMethods({ GET: real }, noCredentials);
    expect([GET, HEAD]).toEqual([undefined, undefined]);
  });
});
