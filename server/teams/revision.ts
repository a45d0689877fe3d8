import 'server-only';
import { sql } from 'drizzle-orm';
import type { Db } from '@/server/db';

export const UNFINISHED = ['queued', 'running', 'waiting_input', 'resuming', 'cancelling'] as const;
export const TERMINAL = ['completed', 'failed', 'cancelled'] as const;
/** Jobs that hold one of the database's admission slots. */
export const SLOT_HOLDING = ['running', 'cancelling'] as const;

export const isTerminal = (status: string) => (TERMINAL as readonly string[]).includes(status);

/**
 * Bump the team's revision and recompute its pending flag. Call inside the transaction that changed
 * anything the activity view shows, so readers never see a change without its revision.
 */
export function touchTeam(tx: Db, teamId: string): number {
  const row = tx.$client
    .prepare(
      `update teams set revision = revision + 1, updated_at = ?,
         has_pending = exists(select 1 from jobs where jobs.team_id = teams.id
           and jobs.status in ('queued','running','waiting_input','resuming','cancelling'))
       where id = ? returning revision`,
    )
    .get(Date.now(), teamId) as { revision: number } | undefined;
  return row?.revision ?? 0;
}

export const now = () => new Date();
export { sql };
