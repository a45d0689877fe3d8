import 'server-only';
import { teamBudgetState } from '@/lib/budget-state';
import { inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { teamTokensUsed, teamsTokensUsed } from './team-usage';

/**
 * Team budgets, enforced at admission. SQL over the teams and runs columns only (no team-domain import): the
 * scheduler's view reads it too, and the scheduler never imports the team domain. Read through the open
 * transaction when called inside one (writeTx, readTx), committed rows otherwise.
 */

/** A person's new request to a team whose budget is used up: refused, so nothing waits unseen (ADR 023). */
export class TeamBudgetReachedError extends AppError {
  constructor(used: number, budget: number) {
    super(
      409,
      'team_budget_reached',
      `This team has used its token budget (${used.toLocaleString('en-US')} of ${budget.toLocaleString('en-US')} tokens). Raise the budget to send new requests.`,
    );
    this.name = 'TeamBudgetReachedError';
  }
}

const budgetOfTeam = statement('select token_budget as budget from teams where id = ?');
const budgetsOfTeams = statement(`select id, token_budget as budget from teams where ${inList('id')} and token_budget is not null`);

/** 409 team_budget_reached when the team has a budget and its usage has reached it. */
export async function assertTeamBudgetOpen(teamId: string): Promise<void> {
  const row = await budgetOfTeam.get<{ budget: number | null }>(teamId);
  if (row?.budget == null) return;
  const used = await teamTokensUsed(teamId);
  if (teamBudgetState(used, row.budget) === 'reached') throw new TeamBudgetReachedError(used, row.budget);
}

/** Of these teams, those with a budget their usage has reached: their queued work is not admitted. */
export async function teamsAtBudget(teamIds: readonly string[]): Promise<Set<string>> {
  if (!teamIds.length) return new Set();
  const budgets = await budgetsOfTeams.all<{ id: string; budget: number }>(teamIds);
  if (!budgets.length) return new Set();
  const used = await teamsTokensUsed(budgets.map((b) => b.id));
  return new Set(budgets.filter((b) => teamBudgetState(used.get(b.id) ?? 0, b.budget) === 'reached').map((b) => b.id));
}
