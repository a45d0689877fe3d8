import 'server-only';
import type Database from 'better-sqlite3';
import { getDb, type Db } from './index';

/**
 * Statements built once per connection. Unprepared, drizzle builds a query's SQL and better-sqlite3 compiles it
 * every time it runs, which on the scheduler's hot paths costs more than the query itself. A connection can be
 * closed and opened again (tests, another data directory), so what was prepared is kept per connection object and
 * a new connection prepares afresh. Inside writeTx the transaction's `tx` is the same connection, so a prepared
 * statement runs inside the transaction.
 *
 * Build with drizzle's `.prepare()` and `sql.placeholder('name')` for the values.
 */
export function preparedPerConnection<T>(build: (db: Db) => T): (db?: Db) => T {
  const byConnection = new WeakMap<Db, T>();
  return (db = getDb()) => {
    let prepared = byConnection.get(db);
    if (!prepared) {
      prepared = build(db);
      byConnection.set(db, prepared);
    }
    return prepared;
  };
}

/** The same for hand-written SQL: one compiled better-sqlite3 statement per connection and SQL text. */
export function rawStatement(sql: string): (db?: Db) => Database.Statement {
  return preparedPerConnection((db) => db.$client.prepare(sql));
}
