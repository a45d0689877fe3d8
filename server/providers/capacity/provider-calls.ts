import 'server-only';
import { and, eq, lt, ne, or } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';

/** How long a waiting or running call counts without being renewed: a dead process's calls stop counting after it. */
export const CALL_LEASE_MS = 60_000;
/** The per-minute cap's window. */
export const RATE_WINDOW_MS = 60_000;

export type ProviderLimits = { maxConcurrent: number; requestsPerMinute: number | null };

/** Why a call may not start yet: calls queued before it, the provider's calls in flight, or its per-minute cap. */
export type CapacityWait =
  | { reason: 'queue'; ahead: number }
  | { reason: 'concurrency'; inFlight: number; max: number }
  | { reason: 'rate'; perMinute: number; retryAt: number };

export type ClaimOutcome = { granted: true } | { granted: false; wait: CapacityWait };

type Row = typeof schema.providerCalls.$inferSelect;

/**
 * One try at starting call `id` on a provider, in one write transaction, so every process counts the same rows: the
 * provider's expired calls are dropped, the call is queued (first try) or its wait renewed, and it starts when no
 * live call was queued before it, fewer than `maxConcurrent` are in flight and fewer than `requestsPerMinute`
 * started in the last minute. Safe to run twice (a serializable retry re-runs it): it reads, then writes one row.
 */
export async function claimProviderCall(call: { id: string; providerKey: string; runId: string | null }, limits: ProviderLimits, now = Date.now): Promise<ClaimOutcome> {
  return writeTx(async (tx) => {
    const t = now();
    const calls = schema.providerCalls;
    await tx
      .delete(calls)
      .where(
        and(
          eq(calls.providerKey, call.providerKey),
          or(and(ne(calls.state, 'done'), lt(calls.expiresAt, t)), and(eq(calls.state, 'done'), lt(calls.expiresAt, t - RATE_WINDOW_MS))),
        ),
      );
    const rows: Row[] = await tx.select().from(calls).where(eq(calls.providerKey, call.providerKey));
    let mine = rows.find((r) => r.id === call.id);
    if (!mine) {
      // Queued after every call already there (a burst in one millisecond keeps the order its transactions had).
      const queuedAt = rows.reduce((last, r) => Math.max(last, r.queuedAt + 1), t);
      mine = { id: call.id, providerKey: call.providerKey, runId: call.runId, state: 'waiting', queuedAt, startedAt: null, expiresAt: t + CALL_LEASE_MS };
      await tx.insert(calls).values(mine);
      rows.push(mine);
    }
    if (mine.state === 'running') return { granted: true };
    const wait = waitFor(mine, rows, limits, t);
    if (!wait) {
      await tx.update(calls).set({ state: 'running', startedAt: t, expiresAt: t + CALL_LEASE_MS }).where(eq(calls.id, call.id));
      return { granted: true };
    }
    await tx.update(calls).set({ expiresAt: t + CALL_LEASE_MS }).where(eq(calls.id, call.id));
    return { granted: false, wait };
  });
}

/** The first rule that holds a waiting call back at `t`, or null when it may start. Pure: tested on its own. */
export function waitFor(mine: Pick<Row, 'id' | 'queuedAt'>, rows: readonly Row[], limits: ProviderLimits, t: number): CapacityWait | null {
  const before = (r: Row) => r.queuedAt < mine.queuedAt || (r.queuedAt === mine.queuedAt && r.id < mine.id);
  const ahead = rows.filter((r) => r.state === 'waiting' && r.id !== mine.id && before(r)).length;
  if (ahead > 0) return { reason: 'queue', ahead };
  const inFlight = rows.filter((r) => r.state === 'running').length;
  if (inFlight >= limits.maxConcurrent) return { reason: 'concurrency', inFlight, max: limits.maxConcurrent };
  if (limits.requestsPerMinute !== null) {
    const starts = rows.filter((r) => r.startedAt !== null && r.startedAt > t - RATE_WINDOW_MS).map((r) => r.startedAt!);
    if (starts.length >= limits.requestsPerMinute) {
      const oldest = Math.min(...starts);
      return { reason: 'rate', perMinute: limits.requestsPerMinute, retryAt: oldest + RATE_WINDOW_MS };
    }
  }
  return null;
}

/** The call ended: it no longer counts in flight, and counts for the per-minute cap until its minute is over. */
export async function finishProviderCall(id: string, now = Date.now): Promise<void> {
  await writeTx(async (tx) => {
    await tx.update(schema.providerCalls).set({ state: 'done', expiresAt: now() }).where(and(eq(schema.providerCalls.id, id), eq(schema.providerCalls.state, 'running')));
  });
}

/** A call given up while it waited (its run stopped): it leaves the queue. */
export async function dropProviderCall(id: string): Promise<void> {
  await writeTx(async (tx) => {
    await tx.delete(schema.providerCalls).where(and(eq(schema.providerCalls.id, id), eq(schema.providerCalls.state, 'waiting')));
  });
}

/** A running call is still alive: it keeps counting. */
export async function renewProviderCall(id: string, now = Date.now): Promise<void> {
  await writeTx(async (tx) => {
    await tx.update(schema.providerCalls).set({ expiresAt: now() + CALL_LEASE_MS }).where(and(eq(schema.providerCalls.id, id), eq(schema.providerCalls.state, 'running')));
  });
}
