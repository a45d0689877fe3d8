import 'server-only';
import type { Db } from '@/server/db';
import { cachedTeamUsage, rememberTeamUsage } from './usage-cache';

/**
 * A team's token usage: the recorded totals (input + output) of every run counted against it — its jobs' runs and
 * their delegated children, which carry the team's id in runs.team_id. A run's totals are written when it finishes
 * (observe/run-lifecycle.ts recordRunEnd), so a run still running counts once it ends (ADR 023).
 */
export function teamTokensUsed(db: Db, teamId: string): number {
  return teamsTokensUsed(db, [teamId]).get(teamId) ?? 0;
}

/** The usage of each of these teams (memoized until one of their runs finishes: usage-cache.ts). */
export function teamsTokensUsed(db: Db, teamIds: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const missing: string[] = [];
  for (const id of teamIds) {
    const known = cachedTeamUsage(id);
    if (known === undefined) missing.push(id);
    else out.set(id, known);
  }
  if (!missing.length) return out;
  const rows = db.$client
    .prepare(
      `select team_id as teamId, coalesce(sum(input_tokens + output_tokens), 0) as n
         from runs indexed by runs_team_idx
        where team_id in (select value from json_each(?))
        group by team_id`,
    )
    .all(JSON.stringify(missing)) as Array<{ teamId: string; n: number }>;
  const sums = new Map(rows.map((r) => [r.teamId, r.n]));
  for (const id of missing) {
    const used = sums.get(id) ?? 0;
    rememberTeamUsage(id, used);
    out.set(id, used);
  }
  return out;
}
