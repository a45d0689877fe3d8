import 'server-only';
import { teamBudgetState } from '@/lib/budget-state';
import type { Db } from '@/server/db';
import type { Team } from '@/server/db/schema';
import { atDailyCap } from '@/server/budgets/daily-cap';
import { teamsTokensUsed } from '@/server/budgets/team-usage';
import type { TeamBudgetView } from './serialize';

/**
 * Each team's usage and admission hold for the team JSON: the same rules the scheduler's view applies (the team's
 * budget first, then the account's daily cap), so what the workspace says is what admission does.
 */
export function teamBudgetViews(db: Db, ownerId: string, teams: readonly Team[]): Map<string, TeamBudgetView> {
  const used = teamsTokensUsed(db, teams.map((t) => t.id));
  let capped: boolean | undefined;
  const dailyCapped = () => (capped ??= atDailyCap(db, ownerId));
  return new Map(
    teams.map((t) => {
      const tokensUsed = used.get(t.id) ?? 0;
      const admissionHeld =
        teamBudgetState(tokensUsed, t.tokenBudget) === 'reached' ? 'team_budget' : dailyCapped() ? 'daily_token_cap' : null;
      return [t.id, { tokensUsed, admissionHeld }];
    }),
  );
}
