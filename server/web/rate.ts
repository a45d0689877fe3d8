import 'server-only';
import { LIMITS } from '@/lib/limits';

/**
 * The per-account rate of web calls (fetch and search together; ADR 060): at most LIMITS.web.callsPerMinute in any
 * sixty seconds. Past it a call is refused with the seconds until the oldest one leaves the window, so the model
 * (or the person reading the step) knows when to try again. Counted in this process: with several processes on one
 * Postgres database each counts its own, so an account's ceiling is the rate times the processes (the egress rule,
 * not the rate, is what keeps fetches off private addresses).
 */

const WINDOW_MS = 60_000;
/** Past this many accounts in the table, a call also drops every account whose window has emptied. */
const SWEEP_AT = 1_000;

// Route bundles and instrumentation may load separate copies of this module: one table per process.
const g = globalThis as unknown as { __ensembleWebCalls?: Map<string, number[]> };
const calls = (g.__ensembleWebCalls ??= new Map<string, number[]>());

export type RateAnswer = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Take one web call for the account now, or say how long until one is free. */
export function takeWebCall(ownerId: string, now: number = Date.now(), perMinute: number = LIMITS.web.callsPerMinute): RateAnswer {
  if (calls.size > SWEEP_AT) sweep(now);
  const recent = (calls.get(ownerId) ?? []).filter((at) => at > now - WINDOW_MS);
  if (recent.length >= perMinute) {
    calls.set(ownerId, recent);
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - now) / 1000)) };
  }
  recent.push(now);
  calls.set(ownerId, recent);
  return { ok: true };
}

function sweep(now: number): void {
  for (const [owner, times] of calls) if (!times.some((at) => at > now - WINDOW_MS)) calls.delete(owner);
}
