import 'server-only';
import { teamBudgetState } from '@/lib/budget-state';
import type { Team } from '@/server/db/schema';
import { atDailyCap } from '@/server/budgets/daily-cap';
import { teamsSpend, teamsTokensUsed } from '@/server/budgets/team-totals';
import type { TeamBudgetView } from './serialize';

/**
 * Each team's usage (tokens and money spent: ADR 048) and admission hold for the team JSON: the same rules the scheduler's view applies (the team's
 * budget first, then the account's daily cap), so what the workspace says is what admission does. Inside readTx
 * (or writeTx), read in the caller's snapshot.
 */
export async function teamBudgetViews(ownerId: string, teams: readonly Team[]): Promise<Map<string, TeamBudgetView>> {
  const used = await teamsTokensUsed(teams.map((t) => t.id));
  const spend = await teamsSpend(teams.map((t) => t.id));
  // The daily cap is read only when some team is under its own budget, and then once.
  let capped: boolean | undefined;
  const views = new Map<string, TeamBudgetView>();
  for (const t of teams) {
    const tokensUsed = used.get(t.id) ?? 0;
    const { nanos: spentNanos, unknownRuns: unknownCostRuns } = spend.get(t.id) ?? { nanos: 0, unknownRuns: 0 };
    const atBudget =
      teamBudgetState(tokensUsed, t.tokenBudget) === 'reached' || teamBudgetState(spentNanos, t.moneyBudgetNanos) === 'reached';
    const admissionHeld = atBudget ? 'team_budget' : (capped ??= await atDailyCap(ownerId)) ? 'daily_token_cap' : null;
    views.set(t.id, { tokensUsed, spentNanos, unknownCostRuns, admissionHeld });
  }
  return views;
}
