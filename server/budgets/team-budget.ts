import 'server-only';
import { teamBudgetState } from '@/lib/budget-state';
import type { Db } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { teamTokensUsed, teamsTokensUsed } from './team-usage';

/**
 * Team budgets, enforced at admission. SQL over the teams and runs columns only (no team-domain import): the
 * scheduler's view reads it too, and the scheduler never imports the team domain.
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

/** 409 team_budget_reached when the team has a budget and its usage has reached it. */
export function assertTeamBudgetOpen(db: Db, teamId: string): void {
  const row = db.$client.prepare('select token_budget as budget from teams where id = ?').get(teamId) as { budget: number | null } | undefined;
  if (row?.budget == null) return;
  const used = teamTokensUsed(db, teamId);
  if (teamBudgetState(used, row.budget) === 'reached') throw new TeamBudgetReachedError(used, row.budget);
}

/** Of these teams, those with a budget their usage has reached: their queued work is not admitted. */
export function teamsAtBudget(db: Db, teamIds: readonly string[]): Set<string> {
  if (!teamIds.length) return new Set();
  const budgets = db.$client
    .prepare(`select id, token_budget as budget from teams where id in (select value from json_each(?)) and token_budget is not null`)
    .all(JSON.stringify(teamIds)) as Array<{ id: string; budget: number }>;
  if (!budgets.length) return new Set();
  const used = teamsTokensUsed(db, budgets.map((b) => b.id));
  return new Set(budgets.filter((b) => teamBudgetState(used.get(b.id) ?? 0, b.budget) === 'reached').map((b) => b.id));
}
