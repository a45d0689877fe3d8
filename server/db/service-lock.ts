import 'server-only';
import path from 'node:path';
import Database from 'better-sqlite3';
import { dataDir } from './paths';

/**
 * One server process per data directory. The lock is an exclusive SQLite transaction on a file of its own
 * (DATA_DIR/server.lock.db), held open for the process lifetime: SQLite takes it with an OS file lock, which
 * the kernel drops when the process ends in any way, SIGKILL included. A PID file could outlive its owner;
 * this lock can't.
 */
export class ServiceLockError extends Error {
  constructor(readonly lockPath: string, cause: unknown) {
    super(
      `Another Ensemble server is using the data directory ${path.dirname(lockPath)}: could not take the service lock ${lockPath}. ` +
        'Stop that server first, or set DATA_DIR to a different directory.',
    );
    this.name = 'ServiceLockError';
    this.cause = cause;
  }
}

type LockState = { db: Database.Database; path: string };

// Route bundles and instrumentation may load separate copies of this module: one lock per process.
const g = globalThis as unknown as { __ensembleServiceLock?: LockState };

export const serviceLockPath = () => path.join(dataDir(), 'server.lock.db');

/** Take the data directory's service lock for this process (idempotent). Throws ServiceLockError when it is held. */
export function acquireServiceLock(): string {
  const file = serviceLockPath();
  if (g.__ensembleServiceLock?.path === file && g.__ensembleServiceLock.db.open) return file;
  const db = new Database(file);
  try {
    // No waiting: a held lock means another live server, not a brief contention.
    db.pragma('busy_timeout = 0');
    // A rollback journal (not WAL) so the exclusive lock is a plain OS lock on this one file.
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new ServiceLockError(file, err);
    throw err;
  }
  g.__ensembleServiceLock = { db, path: file };
  return file;
}

/** Release the lock (graceful shutdown, tests). A crashed process releases it by dying. */
export function releaseServiceLock(): void {
  const state = g.__ensembleServiceLock;
  g.__ensembleServiceLock = undefined;
  if (!state?.db.open) return;
  try {
    state.db.exec('ROLLBACK');
  } finally {
    state.db.close();
  }
}

export const holdsServiceLock = () => !!g.__ensembleServiceLock?.db.open;
