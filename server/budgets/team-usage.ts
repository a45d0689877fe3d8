import 'server-only';
import type { Db } from '@/server/db';

/**
 * A team's token usage: the recorded totals (input + output) of every run counted against it — its jobs' runs and
 * their delegated children, which carry the team's id in runs.team_id. A run's totals are written when it finishes
 * (observe/run-lifecycle.ts recordRunEnd), so a run still running counts once it ends (ADR 023).
 */
export function teamTokensUsed(db: Db, teamId: string): number {
  const row = db.$client
    .prepare(`select coalesce(sum(input_tokens + output_tokens), 0) as n from runs indexed by runs_team_idx where team_id = ?`)
    .get(teamId) as { n: number };
  return row.n;
}

/** The usage of each of these teams (teams with no runs are absent: 0). One indexed lookup per team. */
export function teamsTokensUsed(db: Db, teamIds: readonly string[]): Map<string, number> {
  if (!teamIds.length) return new Map();
  const rows = db.$client
    .prepare(
      `select team_id as teamId, coalesce(sum(input_tokens + output_tokens), 0) as n
         from runs indexed by runs_team_idx
        where team_id in (select value from json_each(?))
        group by team_id`,
    )
    .all(JSON.stringify(teamIds)) as Array<{ teamId: string; n: number }>;
  return new Map(rows.map((r) => [r.teamId, r.n]));
}
