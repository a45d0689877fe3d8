import 'server-only';
import type { UpdateTeamData } from '@/lib/schemas/team-budget';
import type { ApiTeam } from '@/lib/types/team';
import { updateTeamSettings } from './team-settings';

/**
 * Set (or clear, with null) the owner's team budget, in tokens or in money (ADR 048): one of the team's settings (team-settings.ts), written in the
 * transaction that moves the revision, so open workspaces hear of it; a raise past the usage re-admits the team's
 * held work at the scheduler's next pass, asked for now.
 */
export async function updateTeamBudget(ownerId: string, teamId: string, input: UpdateTeamData): Promise<ApiTeam> {
  return updateTeamSettings(ownerId, teamId, { tokenBudget: input.tokenBudget, moneyBudget: input.moneyBudget });
}
