import 'server-only';
import { and, asc, eq, gt, inArray, lt, or } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { getDb, schema } from '@/server/db';
import { clientAddress } from './client-address';
import { normalizeEmail } from './users';

export { clientAddress } from './client-address';

/**
 * Sliding-window rate limits kept in SQLite (table sign_in_failures: one row per counted event), so they hold
 * across restarts and are shared by every door. A rule is a key, a maximum and a window: the next event under a
 * key is refused while the key already has `max` events in the last `windowMs`, until the oldest of those that
 * matter ages out (that is the Retry-After).
 *
 * Sign-in uses three rules per attempt (LIMITS.signIn): the (account, address) pair, the address across all
 * accounts, and a much higher ceiling for the account across all addresses. A stranger's failures fill their own
 * pair and address counters, not the owner's, so the owner signing in from their own address is not locked out;
 * only a guesser spread over many addresses reaches the account ceiling. See docs/decisions/008.
 *
 * Attempts are counted *before* the password is checked (takeLimit, one immediate transaction), and the count is
 * taken back when the password was right: a flood of concurrent attempts can't all slip past the check while
 * their hashes are computed. Blocked attempts are never counted.
 */

export type LimitRule = { key: string; max: number; windowMs: number };
export type RateLimited = { retryAfterSeconds: number };
export type LimitTaken = { ok: true; release: () => void } | ({ ok: false } & RateLimited);

/** Rows older than this are dropped whatever their key; no window may be longer. */
const RETENTION_MS = 24 * 60 * 60_000;

type Clock = () => number;
const g = globalThis as unknown as { __ensembleSignInClock?: Clock };
const now = () => (g.__ensembleSignInClock ?? Date.now)();

/** Tests move time instead of sleeping. Pass nothing to go back to the real clock. */
export function setSignInClock(clock?: Clock): void {
  g.__ensembleSignInClock = clock;
}

type Reader = Pick<ReturnType<typeof getDb>, 'select'>;

/** Attempts under a key that are being checked right now (counted in this process only). */
type Pending = (key: string) => number;
const nonePending: Pending = () => 0;

function blockFor(db: Reader, rules: LimitRule[], t: number, pendingFor: Pending = nonePending): RateLimited | null {
  if (rules.length === 0) return null;
  const longest = Math.max(...rules.map((r) => r.windowMs));
  const rows = db
    .select({ key: schema.signInFailures.key, at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(inArray(schema.signInFailures.key, rules.map((r) => r.key)), gt(schema.signInFailures.at, t - longest)))
    .orderBy(asc(schema.signInFailures.at))
    .all();
  let untilMs = 0;
  for (const rule of rules) {
    const times = rows.filter((r) => r.key === rule.key && r.at > t - rule.windowMs).map((r) => r.at);
    if (times.length + pendingFor(rule.key) < rule.max) continue;
    // Full only counting attempts still being checked: one of them may yet be taken back (a right password).
    if (times.length < rule.max) {
      untilMs = Math.max(untilMs, 1000);
      continue;
    }
    // The event that must leave the window before one more fits.
    const decisive = times[times.length - rule.max]!;
    untilMs = Math.max(untilMs, decisive + rule.windowMs - t);
  }
  return untilMs > 0 ? { retryAfterSeconds: Math.max(1, Math.ceil(untilMs / 1000)) } : null;
}

/** Null when every rule has room for one more event; otherwise how long until all of them do. Reads only. */
export function limitBlock(rules: LimitRule[]): RateLimited | null {
  return blockFor(getDb(), rules, now());
}

/**
 * Check and count in one step: when every rule has room, count one event against each and return `release`,
 * which takes that event back (e.g. the password was right); otherwise count nothing and return the block.
 */
export function takeLimit(rules: LimitRule[]): LimitTaken {
  const t = now();
  const ids = getDb().transaction(
    (tx) => {
      const block = blockFor(tx, rules, t);
      if (block) return block;
      tx.delete(schema.signInFailures).where(lt(schema.signInFailures.at, t - RETENTION_MS)).run();
      return tx
        .insert(schema.signInFailures)
        .values(rules.map((rule) => ({ key: rule.key, at: t })))
        .returning({ id: schema.signInFailures.id })
        .all()
        .map((row) => row.id);
    },
    { behavior: 'immediate' },
  );
  if (!Array.isArray(ids)) return { ok: false, ...ids };
  let released = false;
  return {
    ok: true,
    release: () => {
      if (released || ids.length === 0) return;
      released = true;
      getDb().delete(schema.signInFailures).where(inArray(schema.signInFailures.id, ids)).run();
    },
  };
}

/** Count one event against every rule without checking (e.g. an event that already happened). */
export function recordLimitEvent(rules: LimitRule[]): void {
  if (rules.length === 0) return;
  const t = now();
  getDb().transaction(
    (tx) => {
      tx.delete(schema.signInFailures).where(lt(schema.signInFailures.at, t - RETENTION_MS)).run();
      tx.insert(schema.signInFailures).values(rules.map((rule) => ({ key: rule.key, at: t }))).run();
    },
    { behavior: 'immediate' },
  );
}

/** How many events a key has in the last windowMs (diagnostics and tests). */
export function eventsInWindow(key: string, windowMs: number): number {
  return getDb()
    .select({ at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(eq(schema.signInFailures.key, key), gt(schema.signInFailures.at, now() - windowMs)))
    .all().length;
}

/** Forget every event under these keys (tests, and an operator unlocking an account by hand). */
export function clearLimitKeys(keys: string[]): void {
  if (keys.length === 0) return;
  getDb()
    .delete(schema.signInFailures)
    .where(or(...keys.map((key) => eq(schema.signInFailures.key, key))))
    .run();
}

// ——— Sign-in ———

/** The counters one sign-in attempt touches. An attempt without an email counts against its address only. */
export function signInRules(email: string | null | undefined, address: string): LimitRule[] {
  const { pair, address: perAddress, account } = LIMITS.signIn;
  const rules: LimitRule[] = [{ key: `signin:address:${address}`, ...perAddress }];
  const normalized = typeof email === 'string' ? normalizeEmail(email) : '';
  if (normalized) {
    rules.unshift(
      { key: `signin:pair:${normalized}|${address}`, ...pair },
      { key: `signin:account:${normalized}`, ...account },
    );
  }
  return rules;
}

/** Null when a sign-in for this email from this address may proceed; otherwise how long until it may. */
export const signInBlock = (email: string | null | undefined, address: string) => limitBlock(signInRules(email, address));

export const tooManySignInsMessage = (seconds: number) =>
  `Too many failed sign-ins. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;

const gInFlight = globalThis as unknown as { __ensembleSignInsInFlight?: Map<string, number> };
const inFlight = (gInFlight.__ensembleSignInsInFlight ??= new Map<string, number>());

/**
 * Wrap next-auth's POST handler so the credentials callback answers 429 with Retry-After while a sign-in rule
 * is full. The check runs before delegating (authorize counts the attempt); the email is read from a clone so
 * next-auth still gets an unread body. Attempts already handed to next-auth count against their rules until they
 * answer: a burst of concurrent guesses is refused here, cheaply, instead of each running next-auth's callback
 * only for authorize to refuse it (that work is what slowed every other request during a flood).
 */
export function limitCredentialsSignIn<R extends Request>(delegate: (req: R) => Promise<Response>) {
  return async (req: R): Promise<Response> => {
    if (req.method !== 'POST' || !new URL(req.url).pathname.endsWith('/callback/credentials')) return delegate(req);
    const email = await emailFromBody(req.clone());
    const rules = signInRules(email, clientAddress(req.headers));
    const block = blockFor(getDb(), rules, now(), (key) => inFlight.get(key) ?? 0);
    if (block) {
      return Response.json(
        { error: { code: 'rate_limited', message: tooManySignInsMessage(block.retryAfterSeconds) } },
        { status: 429, headers: { 'retry-after': String(block.retryAfterSeconds), 'cache-control': 'no-store' } },
      );
    }
    for (const { key } of rules) inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    try {
      return await delegate(req);
    } finally {
      for (const { key } of rules) {
        const left = (inFlight.get(key) ?? 1) - 1;
        if (left > 0) inFlight.set(key, left);
        else inFlight.delete(key);
      }
    }
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
