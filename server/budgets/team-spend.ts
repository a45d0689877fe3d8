import 'server-only';
import { indexedBy, inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { cachedTeamSpend, rememberTeamSpend, usageGeneration, type TeamSpend } from './usage-cache';

/**
 * A team's spend in money (ADR 048): the costs recorded on its finished runs (each priced when it finished), in
 * nano-dollars, and how many finished runs have an unknown cost (no price for their model, or a call that reported
 * no usage). Unknown costs are counted apart, never as 0: the workspace says the spend is partly unknown. Framework
 * notes run no model and are left out. Memoized like the token sums (usage-cache.ts: both change only in finishRun).
 */
const spendOfTeams = statement(
  `select team_id as "teamId",
          coalesce(sum(cost_nanos), 0) as nanos,
          coalesce(sum(case when cost_nanos is null and status not in ('pending', 'running') and kind <> 'note' then 1 else 0 end), 0) as unknown
     from runs${indexedBy('runs_team_idx')}
    where ${inList('team_id')}
    group by team_id`,
);

export async function teamSpend(teamId: string): Promise<TeamSpend> {
  return (await teamsSpend([teamId])).get(teamId) ?? { nanos: 0, unknownRuns: 0 };
}

export async function teamsSpend(teamIds: readonly string[]): Promise<Map<string, TeamSpend>> {
  const out = new Map<string, TeamSpend>();
  const missing: string[] = [];
  for (const id of teamIds) {
    const known = cachedTeamSpend(id);
    if (known === undefined) missing.push(id);
    else out.set(id, known);
  }
  if (!missing.length) return out;
  const generation = usageGeneration();
  const rows = await spendOfTeams.all<{ teamId: string; nanos: number | string; unknown: number | string }>(missing);
  // Postgres answers sum(bigint) as numeric, which the driver gives as text; exact below 2^53 (LIMITS.budget.money).
  const sums = new Map(rows.map((r) => [r.teamId, { nanos: Number(r.nanos), unknownRuns: Number(r.unknown) }]));
  for (const id of missing) {
    const spend = sums.get(id) ?? { nanos: 0, unknownRuns: 0 };
    rememberTeamSpend(id, spend, generation);
    out.set(id, spend);
  }
  return out;
}
