import 'server-only';
import { assertSameOriginWrite } from '@/server/http/cross-site';
import { AppError, unauthorized } from '@/server/http/errors';
import { authSecret } from './secret';
import { tokenOwner } from './tokens';
import { findUserById, type PublicUser } from './users';

const SECURE_SESSION_COOKIE = '__Secure-authjs.session-token';
const SESSION_COOKIE = 'authjs.session-token';

/**
 * Resolve the signed-in user for a route handler or server action, or throw 401.
 * A Bearer token wins when present; otherwise the next-auth session cookie is checked (and its session
 * version, so "sign out everywhere" takes effect at once). Every handler calls this itself.
 */
export async function requireUser(req?: Request): Promise<PublicUser> {
  return (await requireCaller(req)).user;
}

export async function currentUser(req?: Request): Promise<PublicUser | null> {
  return (await currentCaller(req))?.user ?? null;
}

/**
 * Who is calling, and the account's session version as it stood when the caller was authenticated: a change
 * that must not outlive a concurrent "every session ends" (a password change, sign out everywhere) compares it
 * with the stored one when it writes (server/auth/password-change.ts).
 */
export type Caller = { user: PublicUser; sessionVersion: number };

/** As requireUser, with the session version the caller was authenticated under. */
export async function requireCaller(req?: Request): Promise<Caller> {
  const caller = await currentCaller(req);
  if (!caller) throw unauthorized();
  return caller;
}

async function currentCaller(req?: Request): Promise<Caller | null> {
  const headers = req ? req.headers : await (await import('next/headers')).headers();
  const authorization = headers.get('authorization');
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    const owner = match?.[1] ? await tokenOwner(match[1]) : null;
    // A disabled account's tokens stop working at once (disabling also revokes them, so re-enabling it doesn't
    // bring them back).
    const account = owner ? await findUserById(owner.user.id) : undefined;
    if (!owner || !isActive(account)) return null;
    // The one place a read-only token is held to reads (ADR 041): every route handler, server action and 405 answer
    // resolves its caller here.
    if (owner.scope === 'read' && isWrite(req, headers)) throw readOnlyToken();
    return { user: owner.user, sessionVersion: account.sessionVersion };
  }
  // A write authenticated by the cookie must come from this app's own pages (server/http/cross-site.ts): checked
  // here, where the cookie is resolved, so no route handler can forget it. Server actions (no req) are checked by
  // Next itself.
  if (req && hasSessionCookie(req.headers)) assertSameOriginWrite(req);
  const user = req ? await userFromSessionCookie(req.headers) : await userFromAuth();
  return isActive(user) ? { user: { id: user.id, email: user.email, name: user.name }, sessionVersion: user.sessionVersion } : null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether the request may change something: a route handler's method other than GET, HEAD or OPTIONS. Without a
 * request (server components and actions) the method is not visible, so anything that could be a server action
 * call counts: the Next-Action header (a fetch from the page) or a body's content type (a form posted without
 * JavaScript carries the action in its body). A page render has neither.
 */
function isWrite(req: Request | undefined, headers: Headers): boolean {
  if (req) return !SAFE_METHODS.has(req.method.toUpperCase());
  return headers.has('next-action') || headers.has('content-type');
}

export const readOnlyToken = () =>
  new AppError(403, 'read_only_token', 'This API token is read-only: it cannot create, change or delete anything. Use a token with full scope.');

/** An account that exists and is not disabled by an admin. */
function isActive<U extends { disabledAt: Date | null }>(user: U | null | undefined): user is U {
  return !!user && user.disabledAt === null;
}

// A tampered or expired cookie is just "not signed in", not something to log.
const quietLogger = { error: () => {}, warn: () => {}, debug: () => {} };

function hasSessionCookie(headers: Headers): boolean {
  return (headers.get('cookie') ?? '').includes(SESSION_COOKIE);
}

/** Route handlers: decode the session cookie of this request (no request-scope globals needed). */
async function userFromSessionCookie(headers: Headers) {
  if (!hasSessionCookie(headers)) return null;
  const cookie = headers.get('cookie') ?? '';
  const [{ getToken }, { sessionUser }] = await Promise.all([import('next-auth/jwt'), import('./config')]);
  const secureCookie = cookie.includes(SECURE_SESSION_COOKIE);
  // getToken falls back to a Bearer header, but callers only get here when there is none.
  const token = await getToken({ req: { headers }, secret: authSecret(), secureCookie, logger: quietLogger });
  return token ? await sessionUser(token) : null;
}

/** Server components and actions: next-auth reads the cookie from the request scope and runs the jwt callback. */
async function userFromAuth() {
  const { auth } = await import('./config');
  const session = await auth();
  const id = session?.user?.id;
  return id ? ((await findUserById(id)) ?? null) : null;
}
