import 'server-only';
import { sql } from 'drizzle-orm';
import type { Db } from '@/server/db';
import { FINISHED_JOB_STATUSES, UNFINISHED_JOB_PREDICATE } from '@/server/db/schema';
import { inList } from '@/server/db/dialect';
import { statement } from '@/server/db/statement';
import { assertStepLease } from '@/server/cluster/lease-check';
import { noteTeamChange } from '@/server/push/team-changes';

/** Jobs that hold one of the database's admission slots. */
export const SLOT_HOLDING = ['running', 'cancelling'] as const;

export const isTerminal = (status: string) => (FINISHED_JOB_STATUSES as readonly string[]).includes(status);

// Three or more times per job: compiled once per connection (server/db/statement.ts). has_pending is an integer
// column on both engines, hence the case (a bare exists() is a boolean on Postgres).
const bumpRevision = statement(
  `update teams set revision = revision + 1, updated_at = ?,
     has_pending = case when exists(select 1 from jobs where jobs.team_id = teams.id
       and jobs.${UNFINISHED_JOB_PREDICATE}) then 1 else 0 end
   where id = ? returning revision`,
);
// Found by id and through the receipt index, never by walking the team's jobs: `team_id || ''` keeps the planner off
// the team index (without statistics SQLite prefers it, and the walk grows with the team's history), yet the team
// is still checked on every row.
export const STAMP_CHANGED_SQL = `update jobs set changed_revision = ? where team_id || '' = ?
     and (${inList('id')} or id in (select r.id from jobs r where ${inList('r.receipt_job_id')}))
   returning id`;
const stampChanged = statement(STAMP_CHANGED_SQL);

/**
 * Bump the team's revision and recompute its pending flag. Call inside the transaction (`tx`, the open writeTx)
 * that changed anything the activity view shows, so readers never see a change without its revision.
 * `changedJobIds` (required, [] when no job changed) — and the requests whose receipts are among them — get the
 * new revision as their changed_revision, which `activity?since=` reads; the open push streams hear of the change
 * once the transaction has committed. Inside a scheduler step on Postgres with several processes, the write is refused
 * unless this process still holds the team's lease (server/cluster/lease-check.ts): every step that changes a team
 * comes through here.
 */
export async function touchTeam(tx: Db, teamId: string, changedJobIds: readonly string[]): Promise<number> {
  await assertStepLease(teamId);
  const row = await bumpRevision.get<{ revision: number }>(new Date(), teamId);
  if (!row) return 0;
  let changed = changedJobIds;
  if (changedJobIds.length) {
    // A request's card shows its receipt's status, so a changed receipt changes the request that embeds it too
    // (without this, `since` would answer with the receipt alone and the request's card would go stale).
    const stamped = await stampChanged.all<{ id: string }>(row.revision, teamId, changedJobIds, changedJobIds);
    changed = [...new Set([...changedJobIds, ...stamped.map((r) => r.id)])];
  }
  noteTeamChange(teamId, changed);
  return row.revision;
}

export const now = () => new Date();
export { sql };
