import 'server-only';
import { indexedBy, inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { cachedTeamUsage, rememberTeamUsage, usageGeneration } from './usage-cache';

/**
 * A team's token usage: the recorded totals (input + output) of every run counted against it — its jobs' runs and
 * their delegated children, which carry the team's id in runs.team_id. A run's totals are written when it finishes
 * (observe/run-lifecycle.ts recordRunEnd), so a run still running counts once it ends (ADR 023). Read through the
 * open transaction when called inside one (writeTx, readTx), committed rows otherwise.
 */
export async function teamTokensUsed(teamId: string): Promise<number> {
  return (await teamsTokensUsed([teamId])).get(teamId) ?? 0;
}

const usageOfTeams = statement(
  `select team_id as "teamId", coalesce(sum(input_tokens + output_tokens), 0) as n
     from runs${indexedBy('runs_team_idx')}
    where ${inList('team_id')}
    group by team_id`,
);

/** The usage of each of these teams (memoized until one of their runs finishes: usage-cache.ts). */
export async function teamsTokensUsed(teamIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const missing: string[] = [];
  for (const id of teamIds) {
    const known = cachedTeamUsage(id);
    if (known === undefined) missing.push(id);
    else out.set(id, known);
  }
  if (!missing.length) return out;
  const generation = usageGeneration();
  const rows = await usageOfTeams.all<{ teamId: string; n: number }>(missing);
  const sums = new Map(rows.map((r) => [r.teamId, Number(r.n)]));
  for (const id of missing) {
    const used = sums.get(id) ?? 0;
    rememberTeamUsage(id, used, generation);
    out.set(id, used);
  }
  return out;
}
