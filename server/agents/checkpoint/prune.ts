import 'server-only';
import { parseRuns, type PositionRuns } from './ranges';
import type { ThreadSaver } from './saver';

export type PruneResult = { checkpoints: number; writes: number; messages: number };

/** Pages handed back to the file system per step: small enough never to pause a request noticeably. */
export const VACUUM_PAGES_PER_STEP = 256;

/**
 * Keep only a thread's newest checkpoint (with its pending writes) and the message rows it refers to.
 *
 * Call it only for a settled thread (no pending or running run). Everything that reads a thread afterwards reads
 * its newest checkpoint: a new run and a resume start from it, recovery decides from it and its pending writes,
 * an interrupt waits in it. Older checkpoints only served history that nothing in the product reads. Message
 * rows that the newest checkpoint no longer lists (a replaced or removed message) go with them.
 */
export function pruneThread(saver: ThreadSaver, threadId: string, ns = ''): PruneResult {
  const db = saver.db;
  // Housekeeping, so it waits for no fsync: a prune a power cut takes back is done again when the thread next settles.
  const result = saver.fsync.unsynced((): PruneResult => {
    const latest = db
      .prepare(`SELECT checkpoint_id AS id, messages FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`)
      .get(threadId, ns) as { id: string; messages: string | null } | undefined;
    if (!latest) return { checkpoints: 0, writes: 0, messages: 0 };
    const checkpoints = db.prepare(`DELETE FROM thread_checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?`).run(threadId, ns, latest.id).changes;
    const writes = db.prepare(`DELETE FROM thread_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id < ?`).run(threadId, ns, latest.id).changes;
    let messages = 0;
    if (latest.messages !== null) {
      const max = (db.prepare(`SELECT max(position) AS p FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = ?`).get(threadId, ns) as { p: number | null }).p ?? 0;
      const drop = db.prepare(`DELETE FROM thread_messages WHERE thread_id = ? AND checkpoint_ns = ? AND position BETWEEN ? AND ?`);
      for (const [first, last] of gaps(parseRuns(latest.messages), max)) messages += drop.run(threadId, ns, first, last).changes;
    }
    return { checkpoints, writes, messages };
  });
  if (result.messages) saver.forgetThread(threadId, ns);
  return result;
}

/**
 * Return `pages` free pages to the file system once that many are free (a no-op unless the file uses incremental
 * auto-vacuum). Fewer are left for the next inserts to reuse: a vacuum is a write transaction, so it waits for the
 * disk (synchronous=FULL), and running it after every run cost a commit per job. The file keeps at most one step's
 * worth of free pages (1 MB at 4 KB pages).
 */
export function vacuumStep(saver: ThreadSaver, pages = VACUUM_PAGES_PER_STEP): void {
  const step = Math.max(1, Math.floor(pages));
  const free = saver.db.pragma('freelist_count', { simple: true }) as number;
  if (free >= step) saver.db.pragma(`incremental_vacuum(${step})`);
}

/** The positions in 1…max that no run covers, as runs (work in the number of runs, not of positions). */
export function gaps(kept: PositionRuns, max: number): PositionRuns {
  const out: PositionRuns = [];
  let next = 1;
  for (const [first, last] of [...kept].sort((a, b) => a[0] - b[0])) {
    if (first > next) out.push([next, Math.min(first - 1, max)]);
    next = Math.max(next, last + 1);
  }
  if (next <= max) out.push([next, max]);
  return out.filter(([a, b]) => a <= b);
}
