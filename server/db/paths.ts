import 'server-only';
import fs from 'node:fs';
import path from 'node:path';
import { env } from '@/server/env';
import { databaseEngine } from './engine';

/** Owner-only: the data directory holds every account's data, password hashes and the session secret. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The SQLite files this process opens; created empty (and owner-only) before SQLite ever sees them. On Postgres
 * (DATABASE_URL) the app's tables and the checkpoints live there and several processes share it without a lock file:
 * no SQLite file at all (the directory may still keep a generated auth secret). */
const databaseFiles = () => (databaseEngine() === 'postgres' ? [] : ['ensemble.db', 'checkpoints.db', 'server.lock.db']);

// Route bundles and instrumentation can load separate copies of this module: remember prepared directories on globalThis.
const g = globalThis as unknown as { __ensembleDataDirs?: Set<string> };

/** Where the database, checkpoints and lock live. DATA_DIR overrides ./data. Prepared once per process. */
export function dataDir(): string {
  const dir = env.dataDir;
  const prepared = (g.__ensembleDataDirs ??= new Set());
  if (!prepared.has(dir)) {
    prepareDataDir(dir);
    prepared.add(dir);
  }
  return dir;
}

/**
 * Create the directory owner-only, or tighten an existing one: the directory to 0700 and every file directly in
 * it (databases, their -wal/-shm files, the lock, the auth secret) to 0600. Modes are set with chmod, so the
 * process umask can't loosen them. The database files are created here rather than by SQLite because SQLite
 * gives a new -wal/-shm file the mode of its database file: an owner-only database keeps its journals owner-only.
 */
function prepareDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  restrict(dir, PRIVATE_DIR_MODE);
  for (const name of databaseFiles()) fs.closeSync(fs.openSync(path.join(dir, name), 'a', PRIVATE_FILE_MODE));
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    // Another process starting at the same moment may remove its temporary file between readdir and chmod.
    if (entry.isFile()) restrict(path.join(dir, entry.name), PRIVATE_FILE_MODE, { mayVanish: true });
  }
}

/** chmod, except that a directory mounted for us by someone else (EPERM: not our inode) only gets a warning. */
export function restrict(file: string, mode: number, { mayVanish = false } = {}): void {
  try {
    if ((fs.statSync(file).mode & 0o777) !== mode) fs.chmodSync(file, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && mayVanish) return;
    if (code !== 'EPERM') throw err;
    console.warn(`[ensemble] could not set mode ${mode.toString(8)} on ${file} (it belongs to another user): ${(err as Error).message}`);
  }
}

export const appDbPath = () => path.join(dataDir(), 'ensemble.db');
export const checkpointDbPath = () => path.join(dataDir(), 'checkpoints.db');
export const migrationsDir = () => env.migrationsDir;
