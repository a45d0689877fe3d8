import 'server-only';
import { indexedBy, inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { cachedTeamTotals, rememberTeamTotals, usageGeneration, type TeamSpend, type TeamTotals } from './usage-cache';

/**
 * What a team's finished runs add up to, in one read of its runs (memoized: usage-cache.ts; both sums change only in
 * finishRun):
 * - tokens: the recorded totals (input + output) of every run counted against it — its jobs' runs and their
 *   delegated children, which carry the team's id in runs.team_id. A run's totals are written when it finishes
 *   (observe/run-lifecycle.ts recordRunEnd), so a run still running counts once it ends (ADR 023).
 * - spend (ADR 048): the costs recorded on its finished runs (each priced when it finished), in nano-dollars, and how
 *   many finished runs have an unknown cost (no price for their model, or a call that reported no usage). Unknown
 *   costs are counted apart, never as 0: the workspace says the spend is partly unknown. Framework notes run no
 *   model and are left out.
 * Read through the open transaction when called inside one (writeTx, readTx), committed rows otherwise.
 */
const totalsOfTeams = statement(
  `select team_id as "teamId",
          coalesce(sum(input_tokens + output_tokens), 0) as tokens,
          coalesce(sum(cost_nanos), 0) as nanos,
          coalesce(sum(case when cost_nanos is null and status not in ('pending', 'running') and kind <> 'note' then 1 else 0 end), 0) as unknown
     from runs${indexedBy('runs_team_idx')}
    where ${inList('team_id')}
    group by team_id`,
);

const NONE: TeamTotals = { tokens: 0, spend: { nanos: 0, unknownRuns: 0 } };

/** The totals of each of these teams (a team without runs has zeros). */
export async function teamsTotals(teamIds: readonly string[]): Promise<Map<string, TeamTotals>> {
  const out = new Map<string, TeamTotals>();
  const missing: string[] = [];
  for (const id of teamIds) {
    const known = cachedTeamTotals(id);
    if (known === undefined) missing.push(id);
    else out.set(id, known);
  }
  if (!missing.length) return out;
  const generation = usageGeneration();
  type Row = { teamId: string; tokens: number | string; nanos: number | string; unknown: number | string };
  const rows = await totalsOfTeams.all<Row>(missing);
  // Postgres answers sum(bigint) as numeric, which the driver gives as text; exact below 2^53 (LIMITS.budget.money).
  const sums = new Map(rows.map((r) => [r.teamId, { tokens: Number(r.tokens), spend: { nanos: Number(r.nanos), unknownRuns: Number(r.unknown) } }]));
  for (const id of missing) {
    const totals = sums.get(id) ?? NONE;
    rememberTeamTotals(id, totals, generation);
    out.set(id, totals);
  }
  return out;
}

const pick = async <T>(teamIds: readonly string[], of: (totals: TeamTotals) => T): Promise<Map<string, T>> =>
  new Map([...(await teamsTotals(teamIds))].map(([id, totals]) => [id, of(totals)]));

export const teamsTokensUsed = (teamIds: readonly string[]): Promise<Map<string, number>> => pick(teamIds, (t) => t.tokens);
export const teamsSpend = (teamIds: readonly string[]): Promise<Map<string, TeamSpend>> => pick(teamIds, (t) => t.spend);
export const teamTokensUsed = async (teamId: string): Promise<number> => ((await teamsTotals([teamId])).get(teamId) ?? NONE).tokens;
export const teamSpend = async (teamId: string): Promise<TeamSpend> => ((await teamsTotals([teamId])).get(teamId) ?? NONE).spend;
