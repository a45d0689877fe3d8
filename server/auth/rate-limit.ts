import 'server-only';
import { and, asc, eq, gt, inArray, lt } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { getDb, schema } from '@/server/db';
import { normalizeEmail } from './users';

/**
 * Failed sign-ins are counted per account (email) and per client address. Five failures for either key within a
 * minute block further attempts for that key until enough of them age out of the window. Both doors use this
 * module: the HTTP callback (POST /api/auth/callback/credentials) and the browser's sign-in server action.
 * Failures are recorded where credentials are checked (the Credentials provider's authorize), so neither door
 * can forget to count one.
 */

const { maxFailures, windowMs } = LIMITS.signIn;

type Clock = () => number;
const g = globalThis as unknown as { __ensembleSignInClock?: Clock };
const now = () => (g.__ensembleSignInClock ?? Date.now)();

/** Tests move time instead of sleeping. Pass nothing to go back to the real clock. */
export function setSignInClock(clock?: Clock): void {
  g.__ensembleSignInClock = clock;
}

/** The client's address: the first hop of x-forwarded-for, else x-real-ip, else "local". */
export function clientAddress(headers: Headers): string {
  const forwarded = headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  if (forwarded) return forwarded;
  const real = headers.get('x-real-ip')?.trim();
  return real || 'local';
}

/** The counters one attempt touches. An attempt without an email counts against its address only. */
export function signInKeys(email: string | null | undefined, address: string): string[] {
  const keys = [`address:${address}`];
  const normalized = typeof email === 'string' ? normalizeEmail(email) : '';
  if (normalized) keys.unshift(`email:${normalized}`);
  return keys;
}

export type SignInBlock = { retryAfterSeconds: number };

/**
 * Null when an attempt may proceed; otherwise how long until it may. A key unblocks when its count in the window
 * drops below the limit, i.e. when its oldest failure that still matters leaves the window.
 */
export function signInBlock(keys: string[]): SignInBlock | null {
  const t = now();
  const rows = getDb()
    .select({ key: schema.signInFailures.key, at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(inArray(schema.signInFailures.key, keys), gt(schema.signInFailures.at, t - windowMs)))
    .orderBy(asc(schema.signInFailures.at))
    .all();
  let untilMs = 0;
  for (const key of keys) {
    const times = rows.filter((r) => r.key === key).map((r) => r.at);
    if (times.length < maxFailures) continue;
    const decisive = times[times.length - maxFailures]!;
    untilMs = Math.max(untilMs, decisive + windowMs - t);
  }
  return untilMs > 0 ? { retryAfterSeconds: Math.max(1, Math.ceil(untilMs / 1000)) } : null;
}

/** Count one failed sign-in against every key, and drop rows that left the window. */
export function recordSignInFailure(keys: string[]): void {
  const t = now();
  const db = getDb();
  db.transaction(
    (tx) => {
      tx.delete(schema.signInFailures).where(lt(schema.signInFailures.at, t - windowMs)).run();
      tx.insert(schema.signInFailures).values(keys.map((key) => ({ key, at: t }))).run();
    },
    { behavior: 'immediate' },
  );
}

/** How many failures a key has in the current window (for diagnostics and tests). */
export function failuresInWindow(key: string): number {
  return getDb()
    .select({ at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(eq(schema.signInFailures.key, key), gt(schema.signInFailures.at, now() - windowMs)))
    .all().length;
}

export const tooManySignInsMessage = (seconds: number) =>
  `Too many failed sign-ins. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;

/**
 * Wrap next-auth's POST handler so the credentials callback answers 429 with Retry-After while the account or the
 * address is blocked. The check runs before delegating; the email is read from a clone so next-auth still gets an
 * unread body.
 */
export function limitCredentialsSignIn<R extends Request>(delegate: (req: R) => Promise<Response>) {
  return async (req: R): Promise<Response> => {
    if (req.method !== 'POST' || !new URL(req.url).pathname.endsWith('/callback/credentials')) return delegate(req);
    const email = await emailFromBody(req.clone());
    const block = signInBlock(signInKeys(email, clientAddress(req.headers)));
    if (!block) return delegate(req);
    return Response.json(
      { error: { code: 'rate_limited', message: tooManySignInsMessage(block.retryAfterSeconds) } },
      { status: 429, headers: { 'retry-after': String(block.retryAfterSeconds), 'cache-control': 'no-store' } },
    );
  };
}

/** Reads the email the way next-auth reads the body (JSON or url-encoded form); anything else carries none. */
async function emailFromBody(req: Request): Promise<string | null> {
  const type = req.headers.get('content-type') ?? '';
  try {
    if (type.includes('application/json')) {
      const body = (await req.json()) as { email?: unknown } | null;
      return typeof body?.email === 'string' ? body.email : null;
    }
    if (type.includes('application/x-www-form-urlencoded')) return new URLSearchParams(await req.text()).get('email');
  } catch {
    // An unreadable body still counts against the address.
  }
  return null;
}
