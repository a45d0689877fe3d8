import { z } from 'zod';
import { LIMITS } from '../limits';
import { boundedText } from './common';
import { moneyBudgetField, oneBudgetKind, tokenBudgetField } from './team-budget';

export const teamNameField = boundedText({ ...LIMITS.team.name, minChars: 1 });
export const teamGoalField = boundedText({ ...LIMITS.team.goal, minChars: 1 });

/**
 * `PATCH /api/v1/teams/:id`: any of the team's changeable settings — name, goal, a budget in tokens or in money
 * (ADR 048: setting one kind clears the other; null clears that kind). At least one; fields left out keep their
 * value. Name and goal are stored trimmed, as at creation.
 */
export const teamSettingsSchema = z
  .object({
    name: teamNameField.optional(),
    goal: teamGoalField.optional(),
    tokenBudget: tokenBudgetField.optional(),
    moneyBudget: moneyBudgetField.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    oneBudgetKind(v, ctx);
    if (v.name !== undefined || v.goal !== undefined || v.tokenBudget !== undefined || v.moneyBudget !== undefined) return;
    // Named on each field, so a client that sends only one of them (the budget form) finds its own field's error.
    for (const field of ['name', 'goal', 'tokenBudget', 'moneyBudget']) {
      ctx.addIssue({ code: 'custom', path: [field], message: 'Send name, goal, tokenBudget or moneyBudget' });
    }
  });
export type TeamSettingsInput = z.input<typeof teamSettingsSchema>;
export type TeamSettingsData = z.output<typeof teamSettingsSchema>;

/** `POST /api/v1/teams/:id/clone`: the same requestId again answers the clone it already made. */
export const cloneTeamSchema = z
  .object({ requestId: z.string().trim().min(1, 'Required').max(200), name: teamNameField.optional() })
  .strict();
export type CloneTeamInput = z.infer<typeof cloneTeamSchema>;
