import { LIMITS } from './limits';

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
