import 'server-only';
import type Database from 'better-sqlite3';

const byDatabase = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * The statement for `sql` on checkpoints.db, prepared once per database (preparing costs more than a small query,
 * and readers run on every stream update). Weak by database: a reopened checkpointer gets its own.
 */
export function prepared(db: Database.Database, sql: string): Database.Statement {
  let statements = byDatabase.get(db);
  if (!statements) byDatabase.set(db, (statements = new Map()));
  let statement = statements.get(sql);
  if (!statement) statements.set(sql, (statement = db.prepare(sql)));
  return statement;
}
