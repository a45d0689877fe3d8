import 'server-only';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './sqlite-schema';
import { appDbPath, migrationsDir } from './paths';
import { currentTx, TxScope, txContext } from './tx-scope';
import type { Db } from './types';
import { GroupCommitWriter } from './group-commit';
import { cacheStatements } from './statement-cache';
import { repairTextOnSqlite } from './stored-text';
import { WriteQueue } from './write-queue';

/**
 * The embedded engine (ADR 001, 033 §3): one file, two connections. The writer runs every `writeTx`, one at a time
 * in FIFO order, the ones queued meanwhile sharing one COMMIT (group-commit.ts, ADR 034) — SQLite's single-writer
 * rule made explicit, because with an async transaction body other work interleaves at each await and on a shared
 * connection it would land inside the open transaction. Everything
 * outside a transaction reads through a second, read-only connection, which (WAL) sees the last commit and never
 * a write in progress; a write attempted outside `writeTx` fails there at once instead of joining someone's
 * transaction. `readTx` snapshots run on a third (read-only) connection, so a snapshot held open across awaits never
 * makes another request's plain read see rows older than its own commit.
 */
export type SqliteEngine = {
  path: string;
  writer: Db;
  reader: Db;
  /** readTx's own connection: a snapshot held open there never makes a plain read elsewhere see stale rows. */
  snapshot: Db;
  writes: GroupCommitWriter;
  reads: WriteQueue;
};

function connection(file: string, { readonly }: { readonly: boolean }): Db {
  const sqlite = new Database(file, { readonly });
  if (!readonly) {
    sqlite.pragma('journal_mode = WAL');
    // FULL: a commit is fsync'd before it returns, so an acknowledged write survives an OS crash or power loss
    // (NORMAL in WAL mode only survives a process crash). Cost: docs/performance.md.
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
  }
  sqlite.pragma('busy_timeout = 5000');
  cacheStatements(sqlite);
  repairTextOnSqlite(sqlite);
  return drizzle(sqlite, { schema }) as Db;
}

export function openSqlite(): SqliteEngine {
  const path = appDbPath();
  const writer = connection(path, { readonly: false });
  migrate(writer, { migrationsFolder: migrationsDir() });
  const reader = connection(path, { readonly: true });
  const snapshot = connection(path, { readonly: true });
  return { path, writer, reader, snapshot, writes: new GroupCommitWriter(writer), reads: new WriteQueue() };
}

export function closeSqlite(engine: SqliteEngine): void {
  engine.snapshot.$client.close();
  engine.reader.$client.close();
  engine.writer.$client.close();
}

/** On the writer, after every earlier writeTx (group-commit.ts); a nested call is a savepoint of the open one. */
export async function sqliteWriteTx<T>(engine: SqliteEngine, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const open = currentTx();
  if (open && !open.readOnly) return savepoint(open, fn);
  return engine.writes.run(fn);
}

/**
 * A consistent snapshot for several reads (deferred BEGIN on the snapshot connection, one readTx at a time); inside a
 * writeTx, that transaction.
 */
export async function sqliteReadTx<T>(engine: SqliteEngine, fn: (db: Db) => Promise<T> | T): Promise<T> {
  const open = currentTx();
  if (open) return fn(open.db);
  return engine.reads.run(() => snapshotTransaction(engine.snapshot, fn));
}

/** A deferred read transaction on the snapshot connection (writes go through group-commit.ts). */
async function snapshotTransaction<T>(db: Db, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const client = db.$client;
  client.exec('BEGIN');
  const scope = new TxScope(db, undefined, true);
  let result: T;
  try {
    result = await txContext.run(scope, () => fn(db));
    client.exec('COMMIT');
  } catch (error) {
    if (client.inTransaction) client.exec('ROLLBACK');
    throw error;
  }
  scope.committed();
  return result;
}

async function savepoint<T>(open: TxScope, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const client = open.db.$client;
  const name = `sp${++open.depth}`;
  client.exec(`SAVEPOINT ${name}`);
  const scope = open.child();
  scope.depth = open.depth;
  try {
    const result = await txContext.run(scope, () => fn(open.db));
    client.exec(`RELEASE ${name}`);
    scope.released();
    return result;
  } catch (error) {
    if (client.inTransaction) {
      client.exec(`ROLLBACK TO ${name}`);
      client.exec(`RELEASE ${name}`);
    }
    throw error;
  } finally {
    open.depth--;
  }
}
