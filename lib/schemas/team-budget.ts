import { z } from 'zod';
import { LIMITS } from '../limits';

const { min, max } = LIMITS.budget.team;
const n = (v: number) => v.toLocaleString('en-US');

/** A team's token budget: a whole number of tokens within LIMITS.budget.team, or null for no budget. */
export const tokenBudgetField = z
  .number({ error: 'Enter a whole number of tokens' })
  .int('Enter a whole number of tokens')
  .min(min, `Must be at least ${n(min)} tokens`)
  .max(max, `Must be at most ${n(max)} tokens`)
  .nullable();

/** `PATCH /api/v1/teams/:id` and the workspace's budget form: the one team setting that can change. */
export const updateTeamSchema = z.object({ tokenBudget: tokenBudgetField }).strict();
export type UpdateTeamInput = z.infer<typeof updateTeamSchema>;
