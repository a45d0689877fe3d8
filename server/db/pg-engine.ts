import 'server-only';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { isRetryableConflict } from './errors';
import { injectedSerializationFailure, injectingConflicts } from './injected-conflicts';
import { migrateUnderLock } from './pg-migrate';
import { repairTextOnPg } from './stored-text';
import { currentTx, TxScope, txContext } from './tx-scope';
import type { Db } from './types';
import { WriteQueue } from './write-queue';

/**
 * Postgres (ADR 033): a pool; every `writeTx` is a SERIALIZABLE transaction on one pooled client, after every
 * earlier writeTx of this process (a FIFO queue, as on SQLite), run again from the start (up to ten attempts,
 * jittered backoff) when Postgres reports a serialization failure or a deadlock from another process — which is why
 * a transaction body does database work only and leaves side effects to `afterCommit`.
 */
export type PgEngine = { url: string; pool: pg.Pool; db: Db; byClient: WeakMap<pg.PoolClient, Db>; writes: WriteQueue };

// Whole numbers beyond 32 bits (bigint columns, count(*), sum()) arrive as JS numbers, as SQLite's do: every value
// we keep in them (epoch ms, token totals, sequences) is below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (text) => Number(text));

/** fn caught a failed statement and went on: Postgres rolled the whole transaction back at COMMIT. */
export class AbortedTransactionError extends Error {
  constructor() {
    super('The transaction was rolled back at COMMIT: a statement in it failed and the error was caught inside writeTx (catch it around a nested writeTx instead)');
    this.name = 'AbortedTransactionError';
  }
}

const MAX_ATTEMPTS = 10;
const retryable = isRetryableConflict;

export function openPg(url: string): PgEngine {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => console.error('[db] idle Postgres connection failed:', error.message));
  repairTextOnPg(pool);
  return { url, pool, db: drizzle(pool) as unknown as Db, byClient: new WeakMap(), writes: new WriteQueue() };
}

/** Apply drizzle/pg, one process at a time (an advisory lock; ADR 033 §8). */
export async function migratePg(engine: PgEngine, migrationsDir: string): Promise<void> {
  await migrateUnderLock(engine.pool, path.join(migrationsDir, 'pg'));
}

export async function closePg(engine: PgEngine): Promise<void> {
  await engine.pool.end();
}

function dbFor(engine: PgEngine, client: pg.PoolClient): Db {
  let db = engine.byClient.get(client);
  if (!db) {
    db = drizzle(client) as unknown as Db;
    engine.byClient.set(client, db);
  }
  return db;
}

export async function pgWriteTx<T>(engine: PgEngine, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const open = currentTx();
  if (open && !open.readOnly) return savepoint(open, fn);
  // One writer at a time within the process, as on SQLite: SERIALIZABLE would otherwise make writers of one hot
  // row (a team's revision) fail each other round after round (30 concurrent state writes exhausted ten attempts).
  // Retries remain for conflicts with other processes.
  return engine.writes.run(() => retried(engine, fn));
}

async function retried<T>(engine: PgEngine, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The conflict test mode fails every first attempt once its body ran (injected-conflicts.ts).
      return await transaction(engine, 'BEGIN ISOLATION LEVEL SERIALIZABLE', false, fn, attempt === 1 && injectingConflicts());
    } catch (error) {
      if (!retryable(error) || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(400, 5 * 2 ** attempt)));
    }
  }
}

export async function pgReadTx<T>(engine: PgEngine, fn: (db: Db) => Promise<T> | T): Promise<T> {
  const open = currentTx();
  if (open) return fn(open.db);
  return transaction(engine, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', true, fn);
}

async function transaction<T>(engine: PgEngine, begin: string, readOnly: boolean, fn: (tx: Db) => Promise<T> | T, conflict = false): Promise<T> {
  const client = await engine.pool.connect();
  let broken: Error | undefined;
  // A checked-out client whose connection dies emits 'error' besides failing its query; unheard, that would be an
  // uncaught exception. The query's own rejection is what fn and the caller see.
  const onError = (error: Error) => (broken = error);
  client.on('error', onError);
  try {
    await client.query(begin);
    const db = dbFor(engine, client);
    const scope = new TxScope(db, client, readOnly);
    let result: T;
    try {
      result = await txContext.run(scope, () => fn(db));
      if (conflict) throw injectedSerializationFailure();
      const commit = await client.query('COMMIT');
      // A statement that failed inside fn and was caught there leaves the transaction aborted, and Postgres answers
      // that COMMIT with ROLLBACK, not an error. Nothing was written: say so (catch inside a nested writeTx instead).
      if (commit.command === 'ROLLBACK' && !readOnly) throw new AbortedTransactionError();
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    }
    scope.committed();
    return result;
  } finally {
    // A client whose ROLLBACK failed (or whose connection died) is in an unknown state: destroy it rather than hand
    // it to the next caller.
    client.off('error', onError);
    client.release(broken);
  }
}

async function savepoint<T>(open: TxScope, fn: (tx: Db) => Promise<T> | T): Promise<T> {
  const client = open.client as pg.PoolClient;
  const name = `sp${++open.depth}`;
  await client.query(`SAVEPOINT ${name}`);
  const scope = open.child();
  scope.depth = open.depth;
  try {
    const result = await txContext.run(scope, () => fn(open.db));
    await client.query(`RELEASE SAVEPOINT ${name}`);
    scope.released();
    return result;
  } catch (error) {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await client.query(`RELEASE SAVEPOINT ${name}`);
    throw error;
  } finally {
    open.depth--;
  }
}
