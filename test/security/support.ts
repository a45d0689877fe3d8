import '../auth/support/next-auth';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { agentCreateSchema } from '@/lib/schemas/agent';
import { createAgent } from '@/server/agents/catalog';
import { createConversation } from '@/server/agents/conversations';
import { start, wait } from '@/server/agents/runs';
import { createInvitation } from '@/server/auth/invitations';
import { createApiToken } from '@/server/auth/tokens';
import { databaseEngine } from '@/server/db';
import { statement } from '@/server/db/statement';
import { allowOf } from '@/server/http/method-not-allowed';
import { sendRequest } from '@/server/teams/requests';
import { signInOverHttp } from '../auth/support/http-auth';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

export const PASSWORD = 'correct horse battery';
export const ORIGIN = 'http://localhost';
const API_DIR = path.resolve(__dirname, '../../app/api/v1');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];
export type RouteKey = `${Method} ${string}`;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

type RouteFile = { route: string; file: string; takes: Method[] };

/**
 * Every route file under app/api/v1 and the methods it takes, read from the tree itself: a new route file or method
 * shows up here, so a matrix that needs a case per route fails until the new route has one. A method it takes is
 * its own handler (`export const GET = …`, `export function GET`); the rest it exports from `otherMethods`
 * (server/http/method-not-allowed.ts: `export const { PUT, … } = otherMethods(…)`), its 405 answers, listed by
 * notAllowedRoutes() and never called as a route (handlerFor refuses them).
 */
export function routeFiles(): RouteFile[] {
  const found: RouteFile[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') {
        const route = '/' + path.relative(API_DIR, dir).split(path.sep).join('/');
        const source = fs.readFileSync(full, 'utf8');
        const takes = METHODS.filter((method) => new RegExp(`export\\s+(const|async\\s+function|function)\\s+${method}\\b`).test(source));
        found.push({ route, file: full, takes });
      }
    }
  };
  walk(API_DIR);
  return found;
}

type RouteMethodEntry = { key: RouteKey; method: Method; route: string; file: string };
const entry = (method: Method, { route, file }: RouteFile): RouteMethodEntry => ({
  key: `${method} ${route === '/' ? '' : route}` as RouteKey,
  method,
  route,
  file,
});
const byKey = (a: RouteMethodEntry, b: RouteMethodEntry) => a.key.localeCompare(b.key);

/** Every route and method under app/api/v1 that a handler of its own answers. */
export function apiRoutes(): RouteMethodEntry[] {
  return routeFiles()
    .flatMap((file) => file.takes.map((method) => entry(method, file)))
    .sort(byKey);
}

/** Every route and method under app/api/v1 that the route does not take: otherMethods' 405 answers. */
export function notAllowedRoutes(): Array<RouteMethodEntry & { takes: Method[] }> {
  return routeFiles()
    .flatMap((file) => METHODS.filter((method) => !file.takes.includes(method)).map((method) => ({ ...entry(method, file), takes: file.takes })))
    .sort(byKey);
}

/** A route's own handler for `method` (kind 'route'), or its 405 answer (kind '405'); anything else throws. */
export async function handlerFor(file: string, method: Method, kind: 'route' | '405' = 'route'): Promise<Handler> {
  const mod = (await import(/* @vite-ignore */ file)) as Record<string, Handler>;
  const handler = mod[method];
  if (!handler) throw new Error(`${file} exports no ${method}`);
  const notAllowed = allowOf(handler) !== null;
  if (notAllowed !== (kind === '405')) {
    throw new Error(`${file} ${method} is ${notAllowed ? "otherMethods' 405 answer, not a route handler" : 'a route handler, not a 405 answer'}`);
  }
  return handler;
}

/** Fill "[id]" segments from params: "/agents/[id]" + { id } → "/agents/<id>". */
export function urlFor(route: string, params: Record<string, string>, query = ''): string {
  const filled = route.replace(/\[(\w+)\]/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for [${name}] in ${route}`);
    return encodeURIComponent(value);
  });
  return `${ORIGIN}/api/v1${filled}${query}`;
}

export type Call = {
  method: Method;
  route: string;
  file: string;
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** 'route' (the default): the route's own handler; '405': the answer for a method it does not take. */
  kind?: 'route' | '405';
};

export type Answer = { status: number; body: { error?: { code: string; message?: string } } & Record<string, unknown>; headers: Headers };

export async function callRoute(call: Call): Promise<Answer> {
  const handler = await handlerFor(call.file, call.method, call.kind);
  const params = call.params ?? {};
  const init: RequestInit = { method: call.method, headers: call.headers ?? {} };
  if (call.body !== undefined) init.body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  const res = await handler(new Request(urlFor(call.route, params, call.query), init), { params: Promise.resolve(params) });
  const raw = await res.text();
  let body = {};
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    body = { raw };
  }
  return { status: res.status, body, headers: res.headers };
}

/**
 * A fingerprint of every row of every table in both databases (app and checkpoints). Columns that change on
 * *reads* by design (a token's last use) are left out, and so are the sign-in limiter's tables when asked: a wrong
 * password is counted on purpose. The app database is read through server/db (either engine: rows in SQLite's
 * shapes); the checkpoints file, when there is one, straight from SQLite.
 */
export async function databaseFingerprint(options: { ignoreLimiter?: boolean } = {}): Promise<string> {
  const hash = crypto.createHash('sha256');
  const add = (name: string, all: Array<Record<string, unknown>>) => {
    if (options.ignoreLimiter && /limit|sign_in_failures/i.test(name)) return;
    // Sorted in JS: some tables are WITHOUT ROWID, and row order is not what is compared.
    const rows = all.map((row) => {
      if (name === 'api_tokens') delete row.last_used_at;
      return JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    });
    hash.update(name);
    for (const row of rows.sort()) hash.update(row);
  };
  for (const { name } of await appTables.all<{ name: string }>()) {
    add(name, await statement(`SELECT * FROM "${name}"`).all<Record<string, unknown>>());
  }
  const dump = (db: Database.Database) => {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name")
      .all() as Array<{ name: string }>;
    for (const { name } of tables) add(name, db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>);
  };
  const checkpoints = path.join(process.env.DATA_DIR!, 'checkpoints.db');
  if (fs.existsSync(checkpoints)) {
    const db = new Database(checkpoints, { readonly: true });
    try {
      dump(db);
    } finally {
      db.close();
    }
  }
  return hash.digest('hex');
}

/** The app database's tables (migration bookkeeping left out), by name. */
const appTables = statement(
  databaseEngine() === 'postgres'
    ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_\\_drizzle%' ORDER BY table_name"
    : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name",
);
const activeRunCount = statement("SELECT count(*) AS n FROM runs WHERE status IN ('pending', 'running')");
const activeRuns = async () => Number((await activeRunCount.get<{ n: number | string }>())!.n);
const nextImmediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Wait until no run is pending or running (a started run keeps writing after its 202), and until the thread
 * maintenance a finished run schedules (server/agents/checkpointer.ts: pruning on the next setImmediate) has run.
 */
export async function settleRuns(): Promise<void> {
  await until(async () => (await activeRuns()) === 0, 15_000, 'runs to settle');
  await nextImmediate();
  await nextImmediate();
}

export type Owner = Awaited<ReturnType<typeof makeUser>>;

export function agentFor(ownerId: string, name = `Agent ${crypto.randomUUID().slice(0, 6)}`) {
  return createAgent(ownerId, agentCreateSchema.parse({ name }));
}

/** A conversation with one finished run. */
export async function conversationWithRun(ownerId: string) {
  const agent = await agentFor(ownerId);
  const conversation = await createConversation(ownerId, agent.id);
  const { run } = await start(ownerId, conversation.id, { text: 'hello' }, { idempotencyKey: crypto.randomUUID() });
  await wait(run.id, 10_000);
  await settleRuns();
  return { agent, conversation, run };
}

/** A ready team and one queued request (the scheduler is not running in unit tests, so it stays queued). */
export async function teamWithJob(ownerId: string) {
  const { team, agents } = await makeTeam(ownerId);
  const memberId = team.members[0]!.id;
  const { jobs } = await sendRequest(ownerId, team.id, { memberIds: [memberId], text: 'do it', draftKey: crypto.randomUUID() });
  return { team, agents, memberId, jobId: jobs[0]!.id };
}

/**
 * Two owners: `ann` is the instance's first account (so its admin) and owns one of everything; `bob` is a member.
 */
export async function makeWorld() {
  const ann = await makeUser('ann');
  const bob = await makeUser('bob');
  const { agent, conversation, run } = await conversationWithRun(ann.id);
  const { team, memberId, jobId } = await teamWithJob(ann.id);
  const { info: token } = await createApiToken(ann.id, 'second');
  const invitation = await createInvitation(ann.id, { expiresInDays: 7 });
  return { ann, bob, agent, conversation, run, team, memberId, jobId, tokenId: token.id, invitationId: invitation.id };
}
export type World = Awaited<ReturnType<typeof makeWorld>>;

export const cookieFor = (owner: { email: string }, password = PASSWORD) => signInOverHttp({ email: owner.email, password });
