import 'server-only';
import { eq } from 'drizzle-orm';
import type { ApiTeam } from '@/lib/types/team';
import { schema, writeTx } from '@/server/db';
import { AppError } from '@/server/http/errors';
import { wakeScheduler } from '@/server/scheduler/signal';
import { ensureMemberConversations, getTeam, requireTeam } from './teams';

export const PENDING_REFUSAL = 'Cancel or complete pending requests first';

/**
 * Delete a finished team: refused while any job is queued, running or waiting. The team's records go in one
 * transaction; member conversations stay available under Conversations.
 */
export function deleteTeam(ownerId: string, teamId: string): void {
  writeTx((tx) => {
    requireTeam(ownerId, teamId, tx);
    const pending = tx.$client
      .prepare(`select count(*) as n from jobs where team_id = ? and status in ('queued','running','waiting_input','resuming','cancelling')`)
      .get(teamId) as { n: number };
    if (pending.n > 0) throw new AppError(409, 'team_busy', PENDING_REFUSAL);
    tx.delete(schema.teams).where(eq(schema.teams.id, teamId)).run();
  });
}

/**
 * Reconnect a disconnected team, or finish an interrupted creation: re-create missing member conversations
 * with their recorded agent binding (existing ones are never replaced); the team is ready only when every
 * member conversation exists.
 */
export function reconnectTeam(ownerId: string, teamId: string): ApiTeam {
  requireTeam(ownerId, teamId);
  ensureMemberConversations(ownerId, teamId);
  wakeScheduler();
  const team = getTeam(ownerId, teamId);
  if (team.status !== 'ready') throw new AppError(409, 'team_not_ready', 'Some member conversations could not be created; try again');
  return team;
}
