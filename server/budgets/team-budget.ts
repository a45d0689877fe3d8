import 'server-only';
import { teamBudgetState } from '@/lib/budget-state';
import { formatUsd } from '@/lib/money';
import { inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { teamsSpend, teamTokensUsed, teamsTokensUsed } from './team-totals';

/**
 * Team budgets, enforced at admission: in tokens (ADR 023) or in money (ADR 048; the known costs of its finished
 * runs against the budget, the same thresholds and the same refusal). SQL over the teams and runs columns only (no
 * team-domain import): the scheduler's view reads it too, and the scheduler never imports the team domain. Read
 * through the open transaction when called inside one (writeTx, readTx), committed rows otherwise.
 */

/** A person's new request to a team whose budget is used up: refused, so nothing waits unseen (ADR 023). */
export class TeamBudgetReachedError extends AppError {
  constructor(message: string) {
    super(409, 'team_budget_reached', message);
    this.name = 'TeamBudgetReachedError';
  }

  static tokens(used: number, budget: number): TeamBudgetReachedError {
    return new TeamBudgetReachedError(
      `This team has used its token budget (${used.toLocaleString('en-US')} of ${budget.toLocaleString('en-US')} tokens). Raise the budget to send new requests.`,
    );
  }

  static money(spentNanos: number, budgetNanos: number): TeamBudgetReachedError {
    return new TeamBudgetReachedError(
      `This team has spent its budget (${formatUsd(spentNanos)} of ${formatUsd(budgetNanos)}). Raise the budget to send new requests.`,
    );
  }
}

type BudgetRow = { id: string; tokens: number | null; money: number | string | null };
const columns = 'id, token_budget as tokens, money_budget_nanos as money';
const budgetOfTeam = statement(`select ${columns} from teams where id = ?`);
const budgetsOfTeams = statement(
  `select ${columns} from teams where ${inList('id')} and (token_budget is not null or money_budget_nanos is not null)`,
);
// Postgres gives bigint columns read by raw SQL as text.
const money = (row: BudgetRow) => (row.money === null ? null : Number(row.money));

/** 409 team_budget_reached when the team has a budget and its usage (tokens) or spend (money) has reached it. */
export async function assertTeamBudgetOpen(teamId: string): Promise<void> {
  const row = await budgetOfTeam.get<BudgetRow>(teamId);
  if (!row) return;
  if (row.tokens != null) {
    const used = await teamTokensUsed(teamId);
    if (teamBudgetState(used, row.tokens) === 'reached') throw TeamBudgetReachedError.tokens(used, row.tokens);
  }
  const budget = money(row);
  if (budget !== null) {
    const spent = (await teamsSpend([teamId])).get(teamId)?.nanos ?? 0;
    if (teamBudgetState(spent, budget) === 'reached') throw TeamBudgetReachedError.money(spent, budget);
  }
}

/** Of these teams, those with a budget their usage or spend has reached: their queued work is not admitted. */
export async function teamsAtBudget(teamIds: readonly string[]): Promise<Set<string>> {
  if (!teamIds.length) return new Set();
  const budgets = await budgetsOfTeams.all<BudgetRow>(teamIds);
  if (!budgets.length) return new Set();
  const byTokens = budgets.filter((b) => b.tokens != null);
  const byMoney = budgets.filter((b) => b.money != null);
  const used = byTokens.length ? await teamsTokensUsed(byTokens.map((b) => b.id)) : new Map<string, number>();
  const spent = byMoney.length ? await teamsSpend(byMoney.map((b) => b.id)) : new Map();
  const reached = new Set<string>();
  for (const b of byTokens) if (teamBudgetState(used.get(b.id) ?? 0, b.tokens) === 'reached') reached.add(b.id);
  for (const b of byMoney) if (teamBudgetState(spent.get(b.id)?.nanos ?? 0, money(b)) === 'reached') reached.add(b.id);
  return reached;
}
