import 'server-only';
import { and, asc, eq, lte } from 'drizzle-orm';
import { LIMITS } from '@/lib/limits';
import { schema, writeTx } from '@/server/db';

/**
 * The per-account rate of web calls (fetch and search together; ADR 060): at most LIMITS.web.callsPerMinute in any
 * sixty seconds. Past it a call is refused with the seconds until the oldest one that matters leaves the window, so
 * the model (or the person reading the step) knows when to try again, and nothing is sent.
 *
 * Counted in the database (web_calls, one row per call), so the rate holds across every process on one Postgres
 * database, not per process. One write transaction reads the account's calls in the window and adds this one: on
 * Postgres it is SERIALIZABLE, so two processes taking the last place at once conflict and the retried one sees the
 * other's row; on SQLite writes are serialized anyway. The account's rows past the window are dropped by the same
 * transaction, so the table holds at most the rate's rows per account.
 */

const WINDOW_MS = 60_000;

export type RateAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Take one web call for the account at `now`, or say how long until one is free. */
export async function takeWebCall(ownerId: string, now: number = Date.now(), perMinute: number = LIMITS.web.callsPerMinute): Promise<RateAnswer> {
  const calls = schema.webCalls;
  return writeTx(async (tx): Promise<RateAnswer> => {
    await tx.delete(calls).where(and(eq(calls.ownerId, ownerId), lte(calls.at, now - WINDOW_MS)));
    const recent = await tx.select({ at: calls.at }).from(calls).where(eq(calls.ownerId, ownerId)).orderBy(asc(calls.at));
    if (recent.length >= perMinute) {
      // The call that must leave the window before one more fits (the oldest, unless the rate was lowered since).
      const decisive = recent[recent.length - perMinute]!.at;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((decisive + WINDOW_MS - now) / 1000)) };
    }
    await tx.insert(calls).values({ ownerId, at: now });
    return { ok: true };
  });
}
