import 'server-only';
import { and, asc, eq, gt, inArray, lt, or } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { getDb, schema, writeTx, type Db } from '@/server/db';
import { clientAddress } from './client-address';
import { normalizeEmail } from './users';

export { clientAddress } from './client-address';

/**
 * Sliding-window rate limits kept in the database (table sign_in_failures: one row per counted event), so they
 * hold across restarts and are shared by every door and every process. A rule is a key, a maximum and a window:
 * the next event under a key is refused while the key already has `max` events in the last `windowMs`, until the
 * oldest of those that matter ages out (that is the Retry-After).
 *
 * Sign-in uses three rules per attempt (LIMITS.signIn): the (account, address) pair, the address across all
 * accounts, and a much higher ceiling for the account across all addresses. A stranger's failures fill their own
 * pair and address counters, not the owner's, so the owner signing in from their own address is not locked out;
 * only a guesser spread over many addresses reaches the account ceiling, and even then an address the account's
 * password was right from before is not held by that ceiling. See docs/decisions/008 and 041.
 *
 * Attempts are counted *before* the password is checked (takeLimit, one write transaction), and the count is
 * taken back when the password was right: a flood of concurrent attempts can't all slip past the check while
 * their hashes are computed. Blocked attempts are never counted.
 */

export type LimitRule = { key: string; max: number; windowMs: number };
export type RateLimited = { retryAfterSeconds: number };
export type LimitTaken = { ok: true; release: () => Promise<void> } | ({ ok: false } & RateLimited);

/** Rows older than this are dropped whatever their key; no window may be longer. */
const RETENTION_MS = 24 * 60 * 60_000;

type Clock = () => number;
const g = globalThis as unknown as { __ensembleSignInClock?: Clock };
const now = () => (g.__ensembleSignInClock ?? Date.now)();

/** Tests move time instead of sleeping. Pass nothing to go back to the real clock. */
export function setSignInClock(clock?: Clock): void {
  g.__ensembleSignInClock = clock;
}

/** Attempts under a key that are being checked right now (counted in this process only). */
type Pending = (key: string) => number;
const nonePending: Pending = () => 0;

type Event = { key: string; at: number };

/** The events under these rules' keys that can still matter at time t, oldest first. */
async function eventsFor(db: Db, rules: LimitRule[], t: number): Promise<Event[]> {
  if (rules.length === 0) return [];
  const longest = Math.max(...rules.map((r) => r.windowMs));
  return db
    .select({ key: schema.signInFailures.key, at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(inArray(schema.signInFailures.key, rules.map((r) => r.key)), gt(schema.signInFailures.at, t - longest)))
    .orderBy(asc(schema.signInFailures.at));
}

async function blockFor(db: Db, rules: LimitRule[], t: number): Promise<RateLimited | null> {
  return decide(await eventsFor(db, rules, t), rules, t, nonePending);
}

/** The block those events (and the attempts still pending) make, or null. Synchronous: see limitCredentialsSignIn. */
function decide(rows: Event[], rules: LimitRule[], t: number, pendingFor: Pending): RateLimited | null {
  if (rules.length === 0) return null;
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
export function limitBlock(rules: LimitRule[]): Promise<RateLimited | null> {
  return blockFor(getDb(), rules, now());
}

/**
 * Check and count in one step: when every rule has room, count one event against each and return `release`,
 * which takes that event back (e.g. the password was right); otherwise count nothing and return the block.
 */
export async function takeLimit(rules: LimitRule[]): Promise<LimitTaken> {
  const t = now();
  const ids = await writeTx(async (tx) => {
    const block = await blockFor(tx, rules, t);
    if (block) return block;
    await tx.delete(schema.signInFailures).where(lt(schema.signInFailures.at, t - RETENTION_MS));
    const inserted = await tx
      .insert(schema.signInFailures)
      .values(rules.map((rule) => ({ key: rule.key, at: t })))
      .returning({ id: schema.signInFailures.id });
    return inserted.map((row) => row.id);
  });
  if (!Array.isArray(ids)) return { ok: false, ...ids };
  let released = false;
  return {
    ok: true,
    release: async () => {
      if (released || ids.length === 0) return;
      released = true;
      await writeTx(async (tx) => {
        await tx.delete(schema.signInFailures).where(inArray(schema.signInFailures.id, ids));
      });
    },
  };
}

/** Count one event against every rule without checking (e.g. an event that already happened). */
export async function recordLimitEvent(rules: LimitRule[]): Promise<void> {
  if (rules.length === 0) return;
  const t = now();
  await writeTx(async (tx) => {
    await tx.delete(schema.signInFailures).where(lt(schema.signInFailures.at, t - RETENTION_MS));
    await tx.insert(schema.signInFailures).values(rules.map((rule) => ({ key: rule.key, at: t })));
  });
}

/** How many events a key has in the last windowMs (diagnostics and tests). */
export async function eventsInWindow(key: string, windowMs: number): Promise<number> {
  const rows = await getDb()
    .select({ at: schema.signInFailures.at })
    .from(schema.signInFailures)
    .where(and(eq(schema.signInFailures.key, key), gt(schema.signInFailures.at, now() - windowMs)));
  return rows.length;
}

/** Forget every event under these keys (tests, and an operator unlocking an account by hand). */
export async function clearLimitKeys(keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await writeTx(async (tx) => {
    await tx.delete(schema.signInFailures).where(or(...keys.map((key) => eq(schema.signInFailures.key, key))));
  });
}

// ——— Sign-in ———

/**
 * The counters one sign-in attempt touches. An attempt without an email counts against its address only; one from
 * an address known to the account (below) is not held by the account-wide ceiling, only by its own counters.
 */
export function signInRules(email: string | null | undefined, address: string, known = false): LimitRule[] {
  const { pair, address: perAddress, account } = LIMITS.signIn;
  const rules: LimitRule[] = [{ key: `signin:address:${address}`, ...perAddress }];
  const normalized = typeof email === 'string' ? normalizeEmail(email) : '';
  if (normalized) {
    rules.unshift({ key: `signin:pair:${normalized}|${address}`, ...pair });
    if (!known) rules.splice(1, 0, { key: `signin:account:${normalized}`, ...account });
  }
  return rules;
}

/** signInRules, with whether the address is known to the account looked up. */
export async function signInRulesFor(email: string | null | undefined, address: string): Promise<LimitRule[]> {
  return signInRules(email, address, await addressKnown(email, address));
}

/** Null when a sign-in for this email from this address may proceed; otherwise how long until it may. */
export const signInBlock = async (email: string | null | undefined, address: string) => limitBlock(await signInRulesFor(email, address));

// ——— Known addresses (ADR 041) ———

/** How long an address stays known to an account after its last successful password check there. */
export const KNOWN_ADDRESS_MS = 90 * 24 * 60 * 60_000;

const knownKey = (email: string, address: string) => `${normalizeEmail(email)}|${address}`;

/**
 * Remember that the account's password was right from this address (a sign-in, or the password typed again): from
 * now on, strangers filling the account's ceiling don't hold it out from here. Only a right password calls this.
 */
export async function rememberSignInAddress(email: string, address: string): Promise<void> {
  const t = now();
  const key = knownKey(email, address);
  await writeTx(async (tx) => {
    await tx.delete(schema.signInKnownAddresses).where(lt(schema.signInKnownAddresses.at, t - KNOWN_ADDRESS_MS));
    await tx
      .insert(schema.signInKnownAddresses)
      .values({ key, at: t })
      .onConflictDoUpdate({ target: schema.signInKnownAddresses.key, set: { at: t } });
  });
}

/** Whether the account's password was right from this address in the last KNOWN_ADDRESS_MS. */
export async function addressKnown(email: string | null | undefined, address: string): Promise<boolean> {
  if (typeof email !== 'string' || !normalizeEmail(email)) return false;
  const [row] = await getDb()
    .select({ at: schema.signInKnownAddresses.at })
    .from(schema.signInKnownAddresses)
    .where(and(eq(schema.signInKnownAddresses.key, knownKey(email, address)), gt(schema.signInKnownAddresses.at, now() - KNOWN_ADDRESS_MS)));
  return row !== undefined;
}

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
    const rules = await signInRulesFor(email, clientAddress(req.headers));
    const t = now();
    const events = await eventsFor(getDb(), rules, t);
    // From here to the counting below nothing is awaited: each attempt's decision sees every attempt of this
    // process admitted before it, so a burst arriving at once can't all pass on the same count.
    const block = decide(events, rules, t, (key) => inFlight.get(key) ?? 0);
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
