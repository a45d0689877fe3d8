import { describe, expect, it } from 'vitest';
import { DELETE, GET, OPTIONS, PATCH, POST, PUT } from '@/app/api/[...path]/route';
import { makeUser } from '../support/users';

// app/api/[...path]/route.ts: an /api path no route serves answers the API's JSON error shape, never the app's HTML
// page. (That Next sends only unmatched paths here, and leaves every real route alone, is e2e/api-errors.spec.ts.)

// OPTIONS too: Next's own would answer 204 listing every method, to anyone.
const handlers = { DELETE, GET, OPTIONS, PATCH, POST, PUT };
const call = (method: keyof typeof handlers, path: string, headers: Record<string, string> = {}) =>
  handlers[method](new Request(`http://localhost${path}`, { method, headers }), { params: Promise.resolve({ path: path.split('/').slice(2) }) });

describe('an /api path no route serves', () => {
  it('answers 401 in JSON without credentials, on every method: what must not happen is a hint about routes to an anonymous caller', async () => {
    for (const method of Object.keys(handlers) as Array<keyof typeof handlers>) {
      const res = await call(method, '/api/v1/nope');
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
  });

  it('answers 404 not_found in JSON to a signed-in caller, naming the method and path', async () => {
    const { token } = await makeUser('unknown-route');
    const auth = { authorization: `Bearer ${token}` };
    for (const method of Object.keys(handlers) as Array<keyof typeof handlers>) {
      const res = await call(method, '/api/v1/team', auth);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: `No API route answers ${method} /api/v1/team` } });
    }
  });

  it('shows at most 200 characters of the path: ASCII, CJK and emoji at the limit and one past it', async () => {
    const { token } = await makeUser('unknown-route-long');
    const auth = { authorization: `Bearer ${token}` };
    const messageFor = async (path: string) => ((await (await call('GET', path, auth)).json()) as { error: { message: string } }).error.message;
    // The path as the URL holds it: non-ASCII is percent-encoded, so a CJK character counts 9 and an emoji 12.
    const encoded = (path: string) => new URL(`http://localhost${path}`).pathname;
    // [path, its encoded length]: at the limit or under it the path is shown whole; past it, its first 200 characters.
    const cases: Array<[string, number]> = [
      [`/api/${'a'.repeat(195)}`, 200],
      [`/api/${'a'.repeat(196)}`, 201],
      [`/api/${'漢'.repeat(21)}x`, 195],
      [`/api/${'漢'.repeat(22)}`, 203],
      [`/api/${'🦊'.repeat(16)}`, 197],
      [`/api/${'🦊'.repeat(17)}`, 209],
    ];
    for (const [path, length] of cases) {
      const shown = encoded(path);
      expect(shown).toHaveLength(length);
      const expected = length <= 200 ? shown : `${shown.slice(0, 200)}…`;
      expect(await messageFor(path)).toBe(`No API route answers GET ${expected}`);
    }
  });
});
