import '../auth/support/next-auth';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allowOf } from '@/server/http/method-not-allowed';
import { routeFiles as v1RouteFiles } from '../security/support';
import { makeUser } from '../support/users';

/**
 * Every route file under app/api, walked from the tree and imported: each answers GET, POST, PUT, PATCH and DELETE,
 * the ones it does not take with otherMethods' 405 (server/http/method-not-allowed.ts), whose Allow names exactly
 * the ones it does take — so the list cannot drift from the file — behind the same gate as its real methods. What
 * must not happen: a method left to Next's empty 405, an Allow that names a 405 or misses a real method, or a 405
 * that tells an anonymous caller, or a member on an admin path, more than the route itself would.
 */
const API_DIR = path.resolve(__dirname, '../../app/api');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
/** Routes anyone may call: next-auth's endpoints and the health check. Adding one is a deliberate change here. */
const PUBLIC = ['/auth/[...nextauth]', '/health'];
/** The catch-all answers every method itself (404 not_found): no 405 there. */
const CATCH_ALL = '/[...path]';

type RouteFile = { route: string; file: string; gate: 'anyone' | 'user' | 'admin'; mod: Record<string, unknown> };

function routeFilesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFilesUnder(full);
    return entry.name === 'route.ts' ? [full] : [];
  });
}

/**
 * The gate its own handlers use, read from its source: called there, or handed to otherMethods when the handlers
 * reach it through a shared helper (callerConversation, teamRecordRoute). The security matrices check that every
 * real handler answers 401 without credentials.
 */
function gateOf(source: string): RouteFile['gate'] {
  if (/\brequireAdmin\b/.test(source)) return 'admin';
  if (/\brequire(User|Caller)\b/.test(source)) return 'user';
  return 'anyone';
}

const takes = (mod: Record<string, unknown>) => METHODS.filter((method) => typeof mod[method] === 'function' && allowOf(mod[method]) === null);
/** What Allow must say: the methods taken, HEAD with GET (Next answers it with GET), and OPTIONS. */
const allowFor = (taken: string[]) => [...taken.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])), 'OPTIONS'];
/** A concrete path for a route folder: "/teams/[id]" → "/api/teams/some-id". */
const pathFor = (route: string) => `/api${route.replace(/\[\.\.\.(\w+)\]/g, 'some/$1').replace(/\[(\w+)\]/g, 'some-$1')}`;

describe('every route file under app/api answers every method', () => {
  let routes: RouteFile[];
  let member: Record<string, string>;
  let admin: Record<string, string>;

  beforeAll(async () => {
    routes = [];
    for (const file of routeFilesUnder(API_DIR).sort()) {
      const route = '/' + path.relative(API_DIR, path.dirname(file)).split(path.sep).join('/');
      routes.push({ route, file, gate: gateOf(fs.readFileSync(file, 'utf8')), mod: (await import(/* @vite-ignore */ file)) as Record<string, unknown> });
    }
    admin = (await makeUser('admin')).auth; // the instance's first account
    member = (await makeUser('member')).auth;
  });

  it('walks the whole tree, and only next-auth and health answer without credentials', () => {
    expect(routes.length).toBeGreaterThanOrEqual(46);
    expect(routes.filter((r) => r.gate === 'anyone').map((r) => r.route)).toEqual(PUBLIC);
  });

  it('exports GET, POST, PUT, PATCH, DELETE and OPTIONS from every file (none left to Next\'s empty 405)', () => {
    for (const { route, mod } of routes) {
      for (const method of [...METHODS, 'OPTIONS']) expect(typeof mod[method], `${method} ${route}`).toBe('function');
    }
  });

  it('makes every 405 of a file list exactly the methods it really takes; HEAD is a 405 only without GET', () => {
    for (const { route, mod } of routes) {
      const taken = takes(mod);
      if (route === CATCH_ALL) {
        expect(taken).toEqual([...METHODS]);
        continue;
      }
      expect(taken.length, route).toBeGreaterThan(0);
      expect(taken.length, route).toBeLessThan(METHODS.length);
      for (const method of METHODS.filter((m) => !taken.includes(m))) expect(allowOf(mod[method]), `${method} ${route}`).toEqual(allowFor(taken));
      if (taken.includes('GET')) expect(mod.HEAD, route).toBeUndefined();
      else expect(allowOf(mod.HEAD), `HEAD ${route}`).toEqual(allowFor(taken));
    }
  });

  it('agrees with what the security matrices read from the sources (their routes are the real handlers)', () => {
    const imported = Object.fromEntries(routes.filter((r) => r.route.startsWith('/v1/')).map((r) => [r.file, takes(r.mod)]));
    const read = Object.fromEntries(v1RouteFiles().map((r) => [r.file, r.takes]));
    expect(read).toEqual(imported);
  });

  it("answers each 405 and OPTIONS behind the route's own gate: 401 signed out, 404 to a member on an admin path", async () => {
    for (const { route, gate, mod } of routes) {
      if (route === CATCH_ALL) continue;
      const taken = takes(mod);
      const others = [...METHODS.filter((m) => !taken.includes(m)), ...(taken.includes('GET') ? [] : ['HEAD']), 'OPTIONS'];
      for (const method of others) {
        const call = (headers: Record<string, string>) =>
          (mod[method] as Handler)(new Request(`http://localhost${pathFor(route)}`, { method, headers }), { params: Promise.resolve({}) });
        const what = `${method} ${route}`;
        const expectAnswer = async (res: Response) => {
          expect(res.headers.get('allow'), what).toBe(allowFor(taken).join(', '));
          if (method === 'OPTIONS') return expect(res.status, what).toBe(204);
          expect(res.status, what).toBe(405);
          expect(await res.json(), what).toEqual({
            error: { code: 'method_not_allowed', message: `${method} ${pathFor(route)} takes ${taken.join(', ')}` },
          });
        };
        const anonymous = await call({});
        if (gate === 'anyone') {
          await expectAnswer(anonymous);
          continue;
        }
        expect([anonymous.status, anonymous.headers.get('allow')], what).toEqual([401, null]);
        const asMember = await call(member);
        if (gate === 'admin') {
          expect([asMember.status, asMember.headers.get('allow')], what).toEqual([404, null]);
          await expectAnswer(await call(admin));
        } else {
          await expectAnswer(asMember);
        }
      }
    }
  });
});
