import 'server-only';
import type Database from 'better-sqlite3';
import { WalFsync, type SyncFile } from '@/server/db/wal-fsync';

/**
 * Commits on checkpoints.db that share one fsync (ADR 035, 036). The file runs `synchronous=FULL`, where every COMMIT
 * waits for the disk on the event loop — five graph-step commits per job did. Here a step's commit is made with
 * `synchronous=NORMAL` (in WAL mode: written to the log, safe from a process crash, not yet from power loss), and
 * its caller is answered only after an fsync of the log, off the loop (server/db/wal-fsync.ts), which covers every
 * commit before it. So each transaction still commits on its own, in order, and nothing is acknowledged before it is
 * on disk; only the fsync is shared.
 */
export class SharedFsync {
  private readonly log?: WalFsync;
  private unsyncedCount = 0;

  constructor(
    private readonly db: Database.Database,
    sync?: SyncFile,
  ) {
    // An in-memory file has no log and nothing to put on disk.
    if (!db.memory) this.log = new WalFsync(db.name, sync);
    // Dropped: the one-row table whose FULL commits were the shared fsync before ADR 036.
    db.exec('DROP TABLE IF EXISTS thread_fsync');
  }

  /** Transactions committed without an fsync of their own, and the log's fsyncs made for them. */
  get stats(): { unsynced: number; fsyncs: number } {
    return { unsynced: this.unsyncedCount, fsyncs: this.log?.stats.fsyncs ?? 0 };
  }

  /** fn as one transaction, committed without an fsync of its own. Not acknowledged: await `durable()` for that. */
  unsynced<T>(fn: () => T): T {
    this.db.pragma('synchronous = NORMAL');
    try {
      const result = this.db.transaction(fn)();
      this.unsyncedCount += 1;
      return result;
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Resolves once every commit made so far is on disk: one fsync of the log, shared by everyone who asks while the one
   * before it runs. If it fails (a full disk), they are all rejected, and so is every later caller (wal-fsync.ts).
   */
  durable(): Promise<void> {
    return this.log ? this.log.durable() : Promise.resolve();
  }
}
