import { LIMITS } from './limits';
import { formatUsd, NANO, parseDecimal } from './money';

/**
 * Where a team's usage stands against its budget: 'warning' from LIMITS.budget.warnAt of it, 'reached' at 100 %
 * (no new work is admitted), 'none' without a budget. Shared by the server (admission) and the workspace (notices).
 */
export type TeamBudgetState = 'none' | 'ok' | 'warning' | 'reached';

export function teamBudgetState(used: number, budget: number | null, warnAt: number = LIMITS.budget.warnAt): TeamBudgetState {
  if (budget === null) return 'none';
  if (used >= budget) return 'reached';
  // Rounded first: in floating point 0.7 × 10 is a hair over 7, which would move the line by one token.
  return used >= Math.ceil(Math.round(budget * warnAt * 1e6) / 1e6) ? 'warning' : 'ok';
}

/** "12,340 / 50,000 tokens", or "12,340 tokens" without a budget. */
export function usageText(used: number, budget: number | null): string {
  const n = (v: number) => v.toLocaleString('en-US');
  return budget === null ? `${n(used)} tokens` : `${n(used)} / ${n(budget)} tokens`;
}

/** What a team's header and notices need of its budget (ApiTeam's fields). */
export type TeamBudgetFields = { tokenBudget: number | null; tokensUsed: number; moneyBudget: string | null; spent: string; unknownCostRuns: number };

/**
 * Where a team stands against its budget of either kind (ADR 048): the state, "used / budget" in the budget's unit,
 * the share used, and the other measure beside it. A money budget counts the known costs of finished runs; runs of
 * unknown cost are not counted as $0 but reported (`unknownNote`), so a person knows the spend is partly unknown.
 */
export type BudgetStanding = {
  kind: 'tokens' | 'money' | null;
  state: TeamBudgetState;
  /** "12,340 / 50,000 tokens", "$1.23 / $10.00", or the usage alone without a budget. */
  usage: string;
  /** A money budget's two figures apart ("$1.23", "$10.00"), for sentences; null otherwise. */
  money: { spent: string; budget: string } | null;
  /** The other measure: the spend beside a token budget, the tokens beside a money budget (or the spend without one). */
  beside: string;
  /** Whole percent of the budget used; null without a budget. */
  percent: number | null;
  /** "2 runs of unknown cost are not counted", or null when every finished run's cost is known. */
  unknownNote: string | null;
  /** `beside` already says "cost unknown" (nothing known was spent): no "partly unknown" beside it. */
  costWhollyUnknown: boolean;
};

export function teamBudgetStanding(team: TeamBudgetFields): BudgetStanding {
  const spentNanos = parseDecimal(team.spent, NANO) ?? 0;
  const moneyNanos = team.moneyBudget === null ? null : parseDecimal(team.moneyBudget, NANO);
  const spentText = formatUsd(spentNanos);
  const unknownNote =
    team.unknownCostRuns > 0
      ? `${team.unknownCostRuns.toLocaleString('en-US')} ${team.unknownCostRuns === 1 ? 'run' : 'runs'} of unknown cost ${team.unknownCostRuns === 1 ? 'is' : 'are'} not counted`
      : null;
  const pct = (used: number, budget: number) => Math.floor((used / budget) * 100);
  if (moneyNanos != null) {
    return {
      kind: 'money',
      state: teamBudgetState(spentNanos, moneyNanos),
      usage: `${spentText} / ${formatUsd(moneyNanos)}`,
      money: { spent: spentText, budget: formatUsd(moneyNanos) },
      beside: `${team.tokensUsed.toLocaleString('en-US')} tokens`,
      percent: pct(spentNanos, moneyNanos),
      unknownNote,
      costWhollyUnknown: false,
    };
  }
  const costWhollyUnknown = unknownNote !== null && spentNanos === 0;
  return {
    kind: team.tokenBudget === null ? null : 'tokens',
    state: teamBudgetState(team.tokensUsed, team.tokenBudget),
    usage: usageText(team.tokensUsed, team.tokenBudget),
    money: null,
    beside: costWhollyUnknown ? 'cost unknown' : `${spentText}${unknownNote ? ' known' : ''}`,
    percent: team.tokenBudget === null ? null : pct(team.tokensUsed, team.tokenBudget),
    unknownNote,
    costWhollyUnknown,
  };
}
