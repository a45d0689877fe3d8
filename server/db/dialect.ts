import 'server-only';
import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { databaseEngine } from './engine';

/**
 * The few SQL spellings the two engines don't share, for hand-written statements (server/db/statement.ts). Each
 * answers SQL text for the engine this process runs on (fixed for its life), so a statement built from them at
 * module load is right for that engine.
 */
const postgres = () => databaseEngine() === 'postgres';

/** A key (object member) or a whole number (array index); keys come from our code, never from a request. */
type Key = string | number;

const quotePath = (keys: readonly Key[]) => keys.map((k) => (typeof k === 'number' ? String(k) : `'${k.replace(/'/g, "''")}'`));
const sqlitePath = (keys: readonly Key[]) => '$' + keys.map((k) => (typeof k === 'number' ? `[${k}]` : `.${k.replace(/'/g, "''")}`)).join('');

/** A JSON column's member as text (null when absent): json_extract(col, '$.a[1]') / col->'a'->>1. */
export function jsonText(column: string, ...keys: Key[]): string {
  if (!postgres()) return `json_extract(${column}, '${sqlitePath(keys)}')`;
  const path = quotePath(keys);
  return `(${column}${path.slice(0, -1).map((k) => `->${k}`).join('')}->>${path.at(-1)})`;
}

/** A JSON column's member as a number (null when absent). */
export function jsonNumber(column: string, ...keys: Key[]): string {
  return postgres() ? `(${jsonText(column, ...keys)})::double precision` : jsonText(column, ...keys);
}

/** `column` is one of the list passed as the next parameter (an array: statement() binds it per engine). */
export function inList(column: string): string {
  return postgres() ? `${column} = any(?)` : `${column} in (select value from json_each(?))`;
}

/**
 * A deterministic last resort for ordering rows created in the same millisecond: insertion order (rowid) on SQLite;
 * the row's id on Postgres, which has no insertion order to read. The callers order runs of one conversation and
 * conversations by activity, where such ties need two creations inside one millisecond (a conversation's runs are
 * created one after another, each after the previous settled), so only the display order of exact ties differs.
 */
export function tieBreak(idColumn: AnyColumn): SQL {
  return postgres() ? sql`${idColumn}` : sql`rowid`;
}

/** SQLite's `indexed by` hint (the planner needs it there, ADR 032); Postgres plans without hints. */
export function indexedBy(index: string): string {
  return postgres() ? '' : ` indexed by ${index}`;
}

/** tieBreak for hand-written statements: the SQL text naming the tie-breaking column. */
export function tieBreakText(idColumn: string): string {
  return postgres() ? idColumn : 'rowid';
}
