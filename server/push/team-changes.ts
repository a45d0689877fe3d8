import 'server-only';
import { afterCommit } from '@/server/db';
import { statement } from '@/server/db/statement';
import { currentTx } from '@/server/db/tx-scope';
import { pushBus } from './bus';

type Pending = Map<string, Set<string>>;
const PENDING = Symbol('pending team changes');

const teamRow = statement('select revision, owner_id as "ownerId" from teams where id = ?');

/**
 * Note that a team changed inside the current write transaction. The note is announced once the transaction
 * commits (never after a rollback), and the flush then reads the team's revision as committed, so a rolled-back bump
 * never announces a revision that the next commit will reuse. Notes of one transaction coalesce to one message per
 * team; outside a transaction, notes made in one tick do.
 */
export function noteTeamChange(teamId: string, jobIds: readonly string[]): void {
  const pending = pendingChanges();
  const ids = pending.get(teamId) ?? new Set<string>();
  for (const id of jobIds) ids.add(id);
  pending.set(teamId, ids);
}

const g = globalThis as unknown as { __ensemblePendingTeamChanges?: Pending };

function pendingChanges(): Pending {
  const scope = currentTx();
  if (scope) {
    const { value, created } = scope.local<Pending>(PENDING, () => new Map());
    if (created) afterCommit(() => void flush(value));
    return value;
  }
  let pending = g.__ensemblePendingTeamChanges;
  if (!pending) {
    pending = g.__ensemblePendingTeamChanges = new Map();
    afterCommit(() => {
      g.__ensemblePendingTeamChanges = undefined;
      void flush(pending!);
    });
  }
  return pending;
}

async function flush(pending: Pending): Promise<void> {
  // Nothing awaits this: log a failure, the streams' readers re-read.
  try {
    for (const [teamId, ids] of pending) {
      const row = await teamRow.get<{ revision: number; ownerId: string }>(teamId);
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
