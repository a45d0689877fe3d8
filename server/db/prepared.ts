import 'server-only';
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { getDb, type Db } from './index';

/**
 * Statements built once per connection. Unprepared, drizzle builds a query's SQL (and the engine compiles it) every
 * time it runs, which on the scheduler's hot paths costs more than the query itself. A connection can be closed
 * and opened again (tests, another data directory), so what was prepared is kept per connection object and a new
 * connection prepares afresh. Inside writeTx `getDb()` is the transaction's connection, so a prepared statement
 * runs inside the transaction.
 *
 * Build with drizzle's `.prepare(name)` (Postgres names its server-side statement; SQLite ignores the name) and
 * `sql.placeholder('name')` for the values; run with `await statement.execute({ … })`, which answers the rows.
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

/**
 * A placeholder encoded as its column encodes values, for set() and where clauses (drizzle encodes placeholders
 * only in insert values): a Date is bound as epoch ms on SQLite and as a timestamp on Postgres, JSON as its text.
 */
export const encodedPlaceholder = (name: string, column: AnyColumn): SQL => sql`${sql.param(sql.placeholder(name), column)}`;
