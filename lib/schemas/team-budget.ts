import { z } from 'zod';
import { LIMITS } from '../limits';
import { NANO } from '../money';
import { usdAmount } from './money';

const { min, max } = LIMITS.budget.team;
const n = (v: number) => v.toLocaleString('en-US');

/** A team's token budget: a whole number of tokens within LIMITS.budget.team, or null for no budget. */
export const tokenBudgetField = z
  .number({ error: 'Enter a whole number of tokens' })
  .int('Enter a whole number of tokens')
  .min(min, `Must be at least ${n(min)} tokens`)
  .max(max, `Must be at most ${n(max)} tokens`)
  .nullable();

/**
 * A team's money budget (ADR 048): US dollars as a decimal string within LIMITS.budget.money ("25", "12.50"),
 * parsed to nano-dollars; null for no money budget.
 */
export const moneyBudgetField = usdAmount({ ...LIMITS.budget.money, scale: NANO }).nullable();

/** A team has a budget of one kind at most: tokens or money. Both set at once is named on both fields. */
export function oneBudgetKind(v: { tokenBudget?: number | null; moneyBudget?: number | null }, ctx: z.RefinementCtx): void {
  if (v.tokenBudget == null || v.moneyBudget == null) return;
  for (const field of ['tokenBudget', 'moneyBudget']) ctx.addIssue({ code: 'custom', path: [field], message: 'Set a budget in tokens or in money, not both' });
}

/**
 * The workspace's budget form: a budget in tokens or in money (setting one kind clears the other), or null for
 * that kind to clear it. Exactly one of the two fields.
 */
export const updateTeamSchema = z
  .object({ tokenBudget: tokenBudgetField.optional(), moneyBudget: moneyBudgetField.optional() })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.tokenBudget === undefined) === (v.moneyBudget === undefined)) {
      for (const field of ['tokenBudget', 'moneyBudget']) ctx.addIssue({ code: 'custom', path: [field], message: 'Send tokenBudget or moneyBudget' });
    }
  });
export type UpdateTeamInput = z.input<typeof updateTeamSchema>;
export type UpdateTeamData = z.output<typeof updateTeamSchema>;
