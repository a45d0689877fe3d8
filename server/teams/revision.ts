import 'server-only';
import { sql } from 'drizzle-orm';
import type { Db } from '@/server/db';
import { noteTeamChange } from '@/server/push/team-changes';

export const UNFINISHED = ['queued', 'running', 'waiting_input', 'resuming', 'cancelling'] as const;
export const TERMINAL = ['completed', 'failed', 'cancelled'] as const;
/** Jobs that hold one of the database's admission slots. */
export const SLOT_HOLDING = ['running', 'cancelling'] as const;

export const isTerminal = (status: string) => (TERMINAL as readonly string[]).includes(status);

/**
 * Bump the team's revision and recompute its pending flag. Call inside the transaction that changed
 * anything the activity view shows, so readers never see a change without its revision. `changedJobIds` (required,
 * [] when no job changed) get the new revision as their changed_revision, which `activity?since=` reads; the open
 * push streams hear of the change once the transaction has committed.
 */
export function touchTeam(tx: Db, teamId: string, changedJobIds: readonly string[]): number {
  const row = tx.$client
    .prepare(
      `update teams set revision = revision + 1, updated_at = ?,
         has_pending = exists(select 1 from jobs where jobs.team_id = teams.id
           and jobs.status in ('queued','running','waiting_input','resuming','cancelling'))
       where id = ? returning revision`,
    )
    .get(Date.now(), teamId) as { revision: number } | undefined;
  if (!row) return 0;
  if (changedJobIds.length) {
    tx.$client
      .prepare('update jobs set changed_revision = ? where team_id = ? and id in (select value from json_each(?))')
      .run(row.revision, teamId, JSON.stringify(changedJobIds));
  }
  noteTeamChange(teamId, changedJobIds);
  return row.revision;
}

export const now = () => new Date();
export { sql };
