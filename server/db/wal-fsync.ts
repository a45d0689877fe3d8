import 'server-only';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** fsync one file or directory by path (off the event loop: libuv's thread pool). */
export type SyncFile = (file: string) => Promise<void>;

const syncFile: SyncFile = async (file) => {
  let handle: FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    // No log: SQLite removes it only when the last connection closes, after copying it into the database file and
    // syncing that (a checkpoint), so nothing written is left in a log to sync.
    if (file.endsWith('-wal') && (error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Makes a SQLite file's commits durable without blocking the event loop (ADR 036). Its connections commit with
 * `synchronous=NORMAL`: in WAL mode a commit is then written to the log (`<file>-wal`) but not fsync'd, safe from a
 * process crash, not yet from power loss. `durable()` answers once an fsync of the log that began after the call has
 * finished. The fsync runs on libuv's thread pool, so the loop goes on with other work meanwhile; under
 * `synchronous=FULL` better-sqlite3 waited for the disk inside every COMMIT, on the loop.
 *
 * Why an fsync of the log is enough: a WAL commit is its frames appended to the log, and every frame before the
 * fsync's start is on disk when it ends, whichever file descriptor wrote it (the page cache belongs to the file).
 * Frames SQLite has already copied into the database file (a checkpoint) were fsync'd there first by SQLite itself,
 * which syncs the log before a checkpoint and the database after one even at NORMAL. The log's directory entry is
 * synced once, before the first answer.
 *
 * One fsync at a time. Callers who ask while one runs share the next, which starts when it ends: their commits may
 * have been written after the running one began. A failed fsync fails its callers and every later one: once Linux has
 * reported a write-back error it may have dropped those pages, so a later fsync that succeeds proves nothing about the
 * frames before it, and SQLite's recovery stops at the first frame missing (the process must restart).
 */
export class WalFsync {
  private running?: Promise<void>;
  private queued?: Promise<void>;
  private failure?: Error;
  private directorySynced = false;
  /** fsyncs of the log made so far (benchmarks print them per job). */
  readonly stats = { fsyncs: 0 };
  readonly walPath: string;

  constructor(
    databasePath: string,
    private readonly sync: SyncFile = syncFile,
  ) {
    this.walPath = `${databasePath}-wal`;
  }

  /** Resolves once everything committed before this call is on disk; rejects if that can no longer be known. */
  durable(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const after = this.running.then(
      () => undefined,
      () => undefined,
    );
    return (this.queued = after.then(() => {
      this.queued = undefined;
      return this.start();
    }));
  }

  private start(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const run = this.fsync().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async fsync(): Promise<void> {
    try {
      if (!this.directorySynced) {
        await this.sync(path.dirname(this.walPath));
        this.directorySynced = true;
      }
      await this.sync(this.walPath);
      this.stats.fsyncs += 1;
    } catch (error) {
      this.failure ??= new Error(
        `Could not write ${path.basename(this.walPath)} to disk (${error instanceof Error ? error.message : String(error)}); ` +
          'writes since the last good fsync may be lost, so this process acknowledges no more writes. Restart it.',
        { cause: error },
      );
      throw this.failure;
    }
  }
}
