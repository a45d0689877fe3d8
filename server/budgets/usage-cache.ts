import 'server-only';
import { afterCommit } from '@/server/db';

/**
 * Memoized usage sums. A planning pass runs on every wake and every 500 ms; summing a team's (or an account's day
 * of) finished runs each time costs row lookups in proportion to its history (npm run bench:budgets: ~0.6 s a pass
 * for 100 budgeted teams over 100,000 runs). A sum (a team's tokens and spend: team-totals.ts) changes only when a run's token totals and cost are written, which is
 * finishRun alone (server/agents/run-store.ts), and it calls usageChanged for that run. With several processes on
 * Postgres (ADR 033) another process's finishRun reaches this cache as a note on the push bridge; notes sent while
 * the bridge was away are lost, so a reconnect forgets every sum (forgetAllUsage). Cleared whole on start-up by
 * being empty.
 *
 * Reads are asynchronous, so a sum read before a change may come back after it: every change bumps a generation,
 * and a sum is remembered only if no change happened since its read began (`usageGeneration()` taken before the
 * query). A change made inside a write transaction forgets the sums again once it commits, so a sum read from
 * committed rows while that transaction was open is not kept either.
 */
/** A team's recorded spend (ADR 048): known costs in nano-dollars, and finished runs whose cost is unknown. */
export type TeamSpend = { nanos: number; unknownRuns: number };
/** What a team's finished runs add up to: tokens (ADR 023) and spend, read together (team-totals.ts). */
export type TeamTotals = { tokens: number; spend: TeamSpend };
type Cache = { teams: Map<string, TeamTotals>; days: Map<string, { day: number; used: number }>; generation: number };

const g = globalThis as unknown as { __ensembleBudgetUsage?: Cache };
const cache = (): Cache => (g.__ensembleBudgetUsage ??= { teams: new Map(), days: new Map(), generation: 0 });

function forget(run: { teamId: string | null; ownerId: string }): void {
  if (run.teamId) cache().teams.delete(run.teamId);
  cache().days.delete(run.ownerId);
  cache().generation += 1;
}

/** A run's totals were written: its team's sum and its account's day are read afresh next time. */
export function usageChanged(run: { teamId: string | null; ownerId: string }): void {
  const { teamId, ownerId } = run;
  forget({ teamId, ownerId });
  afterCommit(() => forget({ teamId, ownerId }));
}

/**
 * Every sum is read afresh next time: runs may have finished elsewhere without this process hearing of it (the
 * push bridge reconnected; ADR 033 §6). A read already under way is not kept either (the generation moves).
 */
export function forgetAllUsage(): void {
  cache().teams.clear();
  cache().days.clear();
  cache().generation += 1;
}

/** Take before reading a sum; pass to remember…Usage, which keeps the sum only if nothing changed meanwhile. */
export const usageGeneration = (): number => cache().generation;

export function cachedTeamTotals(teamId: string): TeamTotals | undefined {
  return cache().teams.get(teamId);
}

export function rememberTeamTotals(teamId: string, totals: TeamTotals, generation: number): void {
  if (generation === cache().generation) cache().teams.set(teamId, totals);
}

/** The account's usage in the UTC day starting at `day`, if known (one day per account is kept: the latest asked). */
export function cachedDayUsage(ownerId: string, day: number): number | undefined {
  const entry = cache().days.get(ownerId);
  return entry?.day === day ? entry.used : undefined;
}

export function rememberDayUsage(ownerId: string, day: number, used: number, generation: number): void {
  if (generation === cache().generation) cache().days.set(ownerId, { day, used });
}
