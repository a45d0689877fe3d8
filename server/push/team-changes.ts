import 'server-only';
import { getDb } from '@/server/db';
import { pushBus } from './bus';

type Pending = Map<string, Set<string>>;
const g = globalThis as unknown as { __ensemblePendingTeamChanges?: Pending };

/**
 * Note that a team changed inside the current write transaction. writeTx is synchronous, so the microtask runs
 * after it has committed (or rolled back); the flush then reads the team's revision as committed, so a rolled-back
 * bump never announces a revision that the next commit will reuse. Touches in one tick coalesce to one message.
 */
export function noteTeamChange(teamId: string, jobIds: readonly string[]): void {
  let pending = g.__ensemblePendingTeamChanges;
  if (!pending) {
    pending = g.__ensemblePendingTeamChanges = new Map();
    queueMicrotask(flush);
  }
  const ids = pending.get(teamId) ?? new Set<string>();
  for (const id of jobIds) ids.add(id);
  pending.set(teamId, ids);
}

function flush(): void {
  const pending = g.__ensemblePendingTeamChanges;
  g.__ensemblePendingTeamChanges = undefined;
  if (!pending) return;
  // A throw here would be an uncaught exception (it runs in a microtask): log it, the streams' readers re-read.
  try {
    const read = getDb().$client.prepare('select revision, owner_id as ownerId from teams where id = ?');
    for (const [teamId, ids] of pending) {
      const row = read.get(teamId) as { revision: number; ownerId: string } | undefined;
      if (!row) continue;
      pushBus().emit('team', { teamId, revision: row.revision, jobIds: [...ids] });
      // The owner's teams list (team-list-stream.ts) shows each team's status and waiting work.
      pushBus().emit('accountTeams', { ownerId: row.ownerId, teamId });
    }
  } catch (error) {
    console.error('[push] team change not announced:', error);
  }
}

/** A team was deleted (after the commit: its row, and so its owner, can no longer be read by the flush above). */
export function noteTeamRemoved(ownerId: string, teamId: string): void {
  pushBus().emit('accountTeams', { ownerId, teamId });
}
