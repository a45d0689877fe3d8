import 'server-only';
import { sql } from 'drizzle-orm';
import type { Db } from '@/server/db';
import { rawStatement } from '@/server/db/prepared';
import { noteTeamChange } from '@/server/push/team-changes';

export const UNFINISHED = ['queued', 'running', 'waiting_input', 'resuming', 'cancelling'] as const;
export const TERMINAL = ['completed', 'failed', 'cancelled'] as const;
/** Jobs that hold one of the database's admission slots. */
export const SLOT_HOLDING = ['running', 'cancelling'] as const;

export const isTerminal = (status: string) => (TERMINAL as readonly string[]).includes(status);

/**
 * Bump the team's revision and recompute its pending flag. Call inside the transaction that changed
 * anything the activity view shows, so readers never see a change without its revision. `changedJobIds` (required,
 * [] when no job changed) — and the requests whose receipts are among them — get the new revision as their changed_revision, which `activity?since=` reads; the open
 * push streams hear of the change once the transaction has committed.
 */
// Three or more times per job: compiled once per connection (server/db/prepared.ts).
const bumpRevision = rawStatement(
  `update teams set revision = revision + 1, updated_at = ?,
     has_pending = exists(select 1 from jobs where jobs.team_id = teams.id
       and jobs.status in ('queued','running','waiting_input','resuming','cancelling'))
   where id = ? returning revision`,
);
const stampChanged = rawStatement(
  `update jobs set changed_revision = ? where team_id = ?
     and (id in (select value from json_each(?)) or receipt_job_id in (select value from json_each(?)))
   returning id`,
);

export function touchTeam(tx: Db, teamId: string, changedJobIds: readonly string[]): number {
  const row = bumpRevision(tx).get(Date.now(), teamId) as { revision: number } | undefined;
  if (!row) return 0;
  let changed = changedJobIds;
  if (changedJobIds.length) {
    // A request's card shows its receipt's status, so a changed receipt changes the request that embeds it too
    // (without this, `since` would answer with the receipt alone and the request's card would go stale).
    const ids = JSON.stringify(changedJobIds);
    const stamped = stampChanged(tx).all(row.revision, teamId, ids, ids) as Array<{ id: string }>;
    changed = [...new Set([...changedJobIds, ...stamped.map((r) => r.id)])];
  }
  noteTeamChange(teamId, changed);
  return row.revision;
}

export const now = () => new Date();
export { sql };
