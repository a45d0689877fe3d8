import 'server-only';
import { LIMITS } from '@/lib/limits';
import { currentCluster } from '@/server/cluster/cluster';
import { databaseEngine, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { batchChanged } from './changes';

/*
 * An admitted item is launched by the process that admitted it (items.ts). When that process is known dead before
 * the item's run was recorded, nothing will launch it and no model ran for it: it goes back to queued at once, under
 * a new lease and with its attempts unchanged, instead of waiting out its lease and spending one (ADR 059, "Recovery").
 * An item whose run was recorded is not touched: its run is recovered like any other, and its end finalizes the item.
 *
 * One compare-and-set UPDATE on its own (autocommit), never inside a SERIALIZABLE writeTx, like the run takeover
 * (server/agents/run-takeover.ts): the condition is re-checked on each row it updates, so a launch that recorded its
 * run meanwhile keeps it, and a late launch of the released lease records nothing (launchItem's fence).
 */

const released = `returning id, owner_id as "ownerId", batch_id as "batchId"`;

// SQLite: one process per database (its service lock), with a new id at each start: every other id is dead. Items
// admitted before lease_process_id existed (null) were a dead process's too.
const releaseSqlite = statement(
  `update batch_items set status = 'queued', lease = lease + 1, lease_expires_at = null, lease_process_id = null
    where status = 'running' and run_id is null and (lease_process_id is null or lease_process_id <> ?)
   ${released}`,
);

// Postgres: dead is judged in SQL against app_processes at this moment, as for runs (a live process's item is never
// taken). A null process (admitted by a version before this column) is left to its lease's expiry.
const releasePostgres = statement(
  `update batch_items set status = 'queued', lease = lease + 1, lease_expires_at = null, lease_process_id = null
    where status = 'running' and run_id is null and lease_process_id is not null and lease_process_id <> ?
      and not exists (select 1 from app_processes p
                        where p.id = batch_items.lease_process_id and p.heartbeat_at > now() - (? * interval '1 millisecond'))
   ${released}`,
);

/**
 * Release the admitted, unlaunched items of dead processes (SQLite: at start-up, before the scheduler starts;
 * Postgres: at each beat's takeover). Returns how many went back to queued.
 */
export async function releaseDeadProcessItems(): Promise<number> {
  const me = currentCluster().processId;
  const rows =
    databaseEngine() === 'postgres'
      ? await releasePostgres.all<{ id: string; ownerId: string; batchId: string }>(me, LIMITS.cluster.leaseMs)
      : // SQLite writes only through writeTx's connection (the other is read-only).
        await writeTx(() => releaseSqlite.all<{ id: string; ownerId: string; batchId: string }>(me));
  for (const batch of new Set(rows.map((row) => `${row.ownerId}\n${row.batchId}`))) {
    const [ownerId, batchId] = batch.split('\n') as [string, string];
    batchChanged(ownerId, batchId);
  }
  if (rows.length > 0) console.log(`[batches] released ${rows.length} unlaunched item(s) of a stopped process`);
  return rows.length;
}
