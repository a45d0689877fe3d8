import 'server-only';
import type Database from 'better-sqlite3';

/**
 * Commits on checkpoints.db that share one fsync (ADR 035). The file runs `synchronous=FULL`: every COMMIT waits for
 * the disk, and better-sqlite3 waits on the event loop — five graph-step commits per job did. Here a commit is made
 * with `synchronous=NORMAL` (in WAL mode: written to the log, safe from a process crash, not yet from power loss),
 * and its caller is answered only after one FULL commit at the end of the loop turn, whose fsync covers every frame
 * in the log before it. So each transaction still commits on its own, in order, and nothing is acknowledged before
 * it is on disk; only the fsync is shared.
 */
export class SharedFsync {
  private readonly sync: Database.Statement;
  private pending?: Promise<void>;
  /** Transactions committed without an fsync, and the shared fsyncs (FULL commits) made for them. */
  readonly stats = { unsynced: 0, fsyncs: 0 };

  constructor(private readonly db: Database.Database) {
    // One row, rewritten by every shared fsync: a FULL commit needs a frame to write.
    db.exec(`CREATE TABLE IF NOT EXISTS thread_fsync (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`);
    this.sync = db.prepare(`INSERT INTO thread_fsync (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1`);
  }

  /** fn as one transaction, committed without an fsync of its own. Not acknowledged: await `durable()` for that. */
  unsynced<T>(fn: () => T): T {
    this.db.pragma('synchronous = NORMAL');
    try {
      const result = this.db.transaction(fn)();
      this.stats.unsynced += 1;
      return result;
    } finally {
      this.db.pragma('synchronous = FULL');
    }
  }

  /**
   * Resolves once every commit made so far is on disk: one FULL commit after this loop turn, shared by everyone
   * who asked during it. If it fails (a full disk), every one of them is rejected.
   */
  durable(): Promise<void> {
    this.pending ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.pending = undefined;
        try {
          this.sync.run();
          this.stats.fsyncs += 1;
          resolve();
        } catch (error) {
          reject(error);
        }
      });
    });
    return this.pending;
  }
}
