import { sql } from 'drizzle-orm';
import { writeTx } from '@/server/db';
import { databaseEngine } from '@/server/db/engine';
import { execute } from '@/server/db/statement';

/**
 * Make the database itself refuse an update (a failure in the middle of a transaction, as a full disk would be), on
 * either engine: SQLite a temp trigger on the writer connection, Postgres a trigger whose function lives in a
 * throw-away schema (each test file has a database of its own). Answers the function that removes it again.
 * `column` limits it to updates of that column, `id` to the row with that id; `message` is the error's text.
 */
/** The message of an error and of its causes, one a line: drizzle on Postgres wraps the driver's error (as `cause`). */
export function errorText(error: unknown): string {
  const lines: string[] = [];
  for (let e = error as { message?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) lines.push(String(e.message ?? e));
  return lines.join('\n');
}

export async function refuseUpdate(opts: {
  name: string;
  table: string;
  column?: string;
  id?: string;
  message: string;
  /** Refuse a delete of the row(s) instead (a failure in the middle of a transaction that deletes). */
  on?: 'update' | 'delete';
}): Promise<() => Promise<void>> {
  const { name, table, column, id, message, on = 'update' } = opts;
  const of = column && on === 'update' ? ` of ${column}` : '';
  const text = message.replace(/'/g, "''");
  const run = (statement: string) => writeTx(() => execute(sql.raw(statement)));
  if (databaseEngine() === 'sqlite') {
    const when = id ? ` when old.id = '${id.replace(/'/g, "''")}'` : '';
    await run(`create temp trigger ${name} before ${on}${of} on ${table}${when} begin select raise(abort, '${text}'); end`);
    return () => run(`drop trigger ${name}`).then(() => undefined);
  }
  const when = id ? ` when (old.id = '${id.replace(/'/g, "''")}')` : '';
  await run('create schema if not exists test_faults');
  await run(`create function test_faults.${name}() returns trigger language plpgsql as $$ begin raise exception '${text}'; end $$`);
  await run(`create trigger ${name} before ${on}${of} on ${table} for each row${when} execute function test_faults.${name}()`);
  return async () => {
    await run(`drop trigger ${name} on ${table}`);
    await run(`drop function test_faults.${name}()`);
  };
}
