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
