import 'server-only';
import * as schema from './schema';
import { activeEngine, closeActiveEngine } from './active-engine';
import { pgReadTx, pgWriteTx } from './pg-engine';
import { sqliteReadTx, sqliteWriteTx } from './sqlite-engine';
import { currentTx } from './tx-scope';
import type { Db } from './types';

export type { Db } from './types';
export { afterCommit } from './tx-scope';
export { databaseEngine } from './engine';

/**
 * The database handle for the current call chain (ADR 033 §3): inside `writeTx`, that transaction (so code sees its
 * own writes); outside, a handle that reads committed rows (SQLite: the read-only connection; Postgres: the pool).
 * Every query on it is awaited; writes outside `writeTx` are refused (SQLite) or not atomic with anything (never
 * do them).
 */
export function getDb(): Db {
  const open = currentTx();
  if (open) return open.db;
  const engine = activeEngine();
  return engine.kind === 'sqlite' ? engine.sqlite.reader : engine.pg.db;
}

/** Open the database and apply pending migrations (start-up, scripts, tests); fails loudly when it can't. */
export async function openDatabase(): Promise<void> {
  const engine = activeEngine();
  if (engine.kind === 'postgres') await engine.ready;
}

/** Close the connections (shutdown, tests). The next use opens them again. */
export async function closeDb(): Promise<void> {
  await closeActiveEngine();
}

/**
 * Run fn in one write transaction: everything in it commits together, as if no other writer ran meanwhile.
 * SQLite: on the writer connection, after every earlier writeTx of this process; the ones queued meanwhile share a
 * COMMIT (group-commit.ts), each in a savepoint of its own, and none is answered before that COMMIT. Postgres:
 * SERIALIZABLE, and fn runs again from the start when Postgres reports a conflict. So fn does database work only
 * (no model calls, no timers, nothing that can't be done twice, and never waiting for another writeTx's answer:
 * on SQLite that one may share fn's COMMIT): anything to do after the commit goes to `afterCommit`, which runs
 * once, after COMMIT, never after a rollback. A nested call is a savepoint.
 */
export async function writeTx<T>(fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const engine = activeEngine();
  if (engine.kind === 'sqlite') return sqliteWriteTx(engine.sqlite, fn);
  await engine.ready;
  return pgWriteTx(engine.pg, fn);
}

/** Several reads that must see one snapshot (no write in between); inside writeTx, that transaction. */
export async function readTx<T>(fn: (db: Db) => Promise<T> | T): Promise<T> {
  const engine = activeEngine();
  if (engine.kind === 'sqlite') return sqliteReadTx(engine.sqlite, fn);
  await engine.ready;
  return pgReadTx(engine.pg, fn);
}

export { schema };
