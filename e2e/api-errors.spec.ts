import { request as playwrightRequest } from '@playwright/test';
import { BASE_URL } from './env';
import { expect, test } from './fixtures';

/**
 * The real server's routing (app/api/[...path]/route.ts): an /api path no route serves answers the API's JSON error,
 * and the catch-all takes nothing from the routes that exist. What must not happen: a script that mistypes a path
 * gets the app's HTML page, or a real route (next-auth's included) answers the catch-all's 404.
 */
test('an unknown /api path answers JSON (401 signed out, 404 signed in); every real route still answers itself', async ({ api }) => {
  // No cookie, no token: a request context made inside a test starts from the test's signed-in storage state.
  const anonymous = await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  try {
    const signedOut = await anonymous.get('/api/v1/nope');
    expect(signedOut.status()).toBe(401);
    expect(signedOut.headers()['content-type']).toMatch(/^application\/json/);
    expect((await signedOut.json()).error.code).toBe('unauthorized');
    // Routes that answer without an account are untouched: health, and next-auth's own catch-all.
    expect((await anonymous.get('/api/health')).status()).toBe(200);
    const csrf = await anonymous.get('/api/auth/csrf');
    expect(csrf.status()).toBe(200);
    expect(typeof (await csrf.json()).csrfToken).toBe('string');
  } finally {
    await anonymous.dispose();
  }

  for (const [method, path] of [
    ['GET', '/api/v1/nope'],
    ['POST', '/api/v1/teams/some-team/jobs/some-job/answer'],
    ['DELETE', '/api/v2/agents'],
    ['GET', '/api/%E6%BC%A2%F0%9F%A6%8A'],
  ] as const) {
    const res = await api.fetch(path, { method, ...(method === 'POST' ? { data: {} } : {}) });
    expect(res.status(), `${method} ${path}`).toBe(404);
    expect(res.headers()['content-type']).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: `No API route answers ${method} ${path}` } });
  }
  // The routes that exist, at every depth, are not shadowed.
  expect((await api.get('/api/v1/me')).status()).toBe(200);
  expect((await api.get('/api/v1/agents')).status()).toBe(200);
  const team = await api.get('/api/v1/teams/some-team');
  expect(team.status()).toBe(404);
  expect((await team.json()).error.message).toBe('Team not found');
});

/**
 * The real server's answer to a method a route does not take (server/http/method-not-allowed.ts): the API's JSON 405
 * with an Allow header that names what the route takes, where Next alone answers an empty 405 without one. What must
 * not happen: an Allow that lies (Next's own OPTIONS would list the 405s), a 405 that answers before the route's gate
 * (an anonymous caller, a foreign site's cookie write), or a real method shadowed.
 */
test('a method a route does not take answers 405 JSON with Allow, behind the route\'s gate; the methods it takes still work', async ({ api, account }) => {
  const put = await api.put('/api/v1/agents', { data: { name: 'Never made' } });
  expect(put.status()).toBe(405);
  expect(put.headers()['allow']).toBe('GET, HEAD, POST, OPTIONS');
  expect(put.headers()['content-type']).toMatch(/^application\/json/);
  expect(await put.json()).toEqual({ error: { code: 'method_not_allowed', message: 'PUT /api/v1/agents takes GET, POST' } });

  const options = await api.fetch('/api/v1/agents', { method: 'OPTIONS' });
  expect([options.status(), options.headers()['allow']]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
  // HEAD is Next's GET where there is a GET, and a 405 where there is none.
  expect((await api.head('/api/v1/agents')).status()).toBe(200);
  const head = await api.head('/api/v1/me/password');
  expect([head.status(), head.headers()['allow']]).toEqual([405, 'POST, OPTIONS']);

  // The methods the route takes answer themselves.
  const created = await api.post('/api/v1/agents', { data: { name: 'Made by POST' } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const listed = await api.get('/api/v1/agents');
  expect(listed.status()).toBe(200);
  expect(((await listed.json()) as { agents: Array<{ id: string }> }).agents.map((a) => a.id)).toEqual([id]);
  const onAgent = await api.post(`/api/v1/agents/${id}`, { data: {} });
  expect([onAgent.status(), onAgent.headers()['allow']]).toEqual([405, 'GET, HEAD, PATCH, DELETE, OPTIONS']);
  expect((await api.delete(`/api/v1/agents/${id}`)).status()).toBe(204);

  // A member on an admin path: 404, as its real methods answer; no method list.
  const admin = await api.put('/api/v1/admin/users', { data: {} });
  expect([admin.status(), admin.headers()['allow']]).toEqual([404, undefined]);

  const anonymous = await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: { cookies: [], origins: [] } });
  // The browser session's cookie, sent the way another site can make a browser send it.
  const cookie = await playwrightRequest.newContext({ baseURL: BASE_URL, storageState: account.storageState });
  try {
    for (const method of ['PUT', 'OPTIONS']) {
      const res = await anonymous.fetch('/api/v1/agents', { method });
      expect([res.status(), res.headers()['allow']], method).toEqual([401, undefined]);
      expect((await res.json()).error.code).toBe('unauthorized');
    }
    // Public routes take no credentials, so their 405 needs none: health, and next-auth's endpoints.
    const health = await anonymous.put('/api/health');
    expect([health.status(), health.headers()['allow']]).toEqual([405, 'GET, HEAD, OPTIONS']);
    const session = await anonymous.delete('/api/auth/session');
    expect([session.status(), session.headers()['allow']]).toEqual([405, 'GET, HEAD, POST, OPTIONS']);
    expect((await session.json()).error.code).toBe('method_not_allowed');

    const foreign = await cookie.put('/api/v1/agents', { headers: { origin: 'https://evil.example' }, data: { name: 'Forged' } });
    expect([foreign.status(), foreign.headers()['allow']]).toEqual([403, undefined]);
    expect((await foreign.json()).error.code).toBe('cross_site');
    const own = await cookie.put('/api/v1/agents', { headers: { origin: BASE_URL }, data: { name: 'Own page' } });
    expect(own.status()).toBe(405);
  } finally {
    await anonymous.dispose();
    await cookie.dispose();
  }
});
