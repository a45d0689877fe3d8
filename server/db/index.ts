import 'server-only';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema';
import { appDbPath, migrationsDir } from './paths';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

type DbState = { db: Db; path: string };

// Route bundles and instrumentation can load separate copies of this module: keep the one connection on globalThis.
const g = globalThis as unknown as { __ensembleDb?: DbState };

function open(file: string): Db {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a commit is fsync'd before it returns, so an acknowledged write survives an OS crash or power loss
  // (NORMAL in WAL mode only survives a process crash). Cost: docs/performance.md.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: migrationsDir() });
  return db;
}

/** The process's one database connection, opened (and migrated) on first use. */
export function getDb(): Db {
  const file = appDbPath();
  if (!g.__ensembleDb || g.__ensembleDb.path !== file) {
    g.__ensembleDb?.db.$client.close();
    g.__ensembleDb = { db: open(file), path: file };
  }
  return g.__ensembleDb.db;
}

/** Close the connection (shutdown, tests). The next getDb() opens it again. */
export function closeDb(): void {
  g.__ensembleDb?.db.$client.close();
  g.__ensembleDb = undefined;
}

/**
 * Run fn in a BEGIN IMMEDIATE transaction: writers queue up front instead of failing on upgrade.
 * better-sqlite3 is synchronous, so the one connection (and every drizzle query on it) is inside the
 * transaction until fn returns; a nested call becomes a savepoint. fn must not await.
 */
export function writeTx<T>(fn: (tx: Db) => T): T {
  const db = getDb();
  return db.$client.transaction(() => fn(db)).immediate();
}

export { schema };
