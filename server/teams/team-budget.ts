import 'server-only';
import { eq } from 'drizzle-orm';
import type { UpdateTeamInput } from '@/lib/schemas/team-budget';
import type { ApiTeam } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { wakeScheduler } from '@/server/scheduler/signal';
import { touchTeam } from './revision';
import { getTeam, requireTeam } from './teams';

/**
 * Set (or clear, with null) the owner's team budget. The revision moves in the same transaction, so open workspaces
 * hear of it; a raise past the usage re-admits the team's held work at the scheduler's next pass, asked for now.
 */
export function updateTeamBudget(ownerId: string, teamId: string, input: UpdateTeamInput): ApiTeam {
  writeTx((tx) => {
    requireTeam(ownerId, teamId, tx);
    tx.update(schema.teams).set({ tokenBudget: input.tokenBudget }).where(eq(schema.teams.id, teamId)).run();
    touchTeam(tx, teamId, []);
  });
  wakeScheduler();
  return getTeam(ownerId, teamId);
}
