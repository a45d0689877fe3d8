import 'server-only';
import { eq, ne } from 'drizzle-orm';
import type { ApiTeam } from '@/lib/types/team';
import { getDb, schema, writeTx } from '@/server/db';
import { UNFINISHED_JOB_PREDICATE } from '@/server/db/schema';
import { statement } from '@/server/db/statement';
import { AppError } from '@/server/http/errors';
import { noteTeamRemoved } from '@/server/push/team-changes';
import { wakeScheduler } from '@/server/scheduler/signal';
import { ensureMemberConversations, getTeam, requireTeam } from './teams';

export const PENDING_REFUSAL = 'Cancel or complete pending requests first';

const pendingJobs = statement(`select count(*) as n from jobs where team_id = ? and ${UNFINISHED_JOB_PREDICATE}`);

/**
 * Delete a finished team: refused while any job is queued, running or waiting. The team's records go in one
 * transaction; member conversations stay available under Conversations.
 */
export async function deleteTeam(ownerId: string, teamId: string): Promise<void> {
  await writeTx(async (tx) => {
    await requireTeam(ownerId, teamId, tx);
    const pending = (await pendingJobs.get<{ n: number }>(teamId))!;
    if (pending.n > 0) throw new AppError(409, 'team_busy', PENDING_REFUSAL);
    await tx.delete(schema.teams).where(eq(schema.teams.id, teamId));
  });
  // The owner's open teams lists drop it (a deleted team has no revision to announce).
  noteTeamRemoved(ownerId, teamId);
}

/**
 * Finish an interrupted creation (Manage → Reconnect): create the missing member conversations
 * with their recorded agent binding (existing ones are never replaced); the team is ready only when every
 * member conversation exists.
 */
export async function reconnectTeam(ownerId: string, teamId: string): Promise<ApiTeam> {
  await requireTeam(ownerId, teamId);
  await ensureMemberConversations(ownerId, teamId);
  wakeScheduler();
  const team = await getTeam(ownerId, teamId);
  if (team.status !== 'ready') throw new AppError(409, 'team_not_ready', 'Some member conversations could not be created; try again');
  return team;
}

/**
 * Start-up: finish every team creation a crash interrupted (the team and its roster were committed, some member
 * conversations were not). Finished rather than undone: the roster and each member's agent binding are already
 * recorded, so finishing is deterministic and idempotent, the person keeps the team they may already have seen
 * listed (and that a retry with the same requestId returns), and no job can exist yet to be lost either way.
 * Returns the teams that became ready.
 */
export async function finishTeamCreations(): Promise<string[]> {
  const unfinished = await getDb()
    .select({ id: schema.teams.id, ownerId: schema.teams.ownerId })
    .from(schema.teams)
    .where(ne(schema.teams.status, 'ready'));
  const finished: string[] = [];
  for (const team of unfinished) {
    try {
      await ensureMemberConversations(team.ownerId, team.id);
      if ((await getTeam(team.ownerId, team.id)).status === 'ready') finished.push(team.id);
    } catch (err) {
      // One broken team must not stop the server; it stays 'creating' and Reconnect can retry it.
      console.error(`[teams] could not finish creating team ${team.id}`, err);
    }
  }
  if (finished.length) wakeScheduler();
  return finished;
}
