import 'server-only';
import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import type Database from 'better-sqlite3';
import pg from 'pg';
import { activeEngine } from './active-engine';
import { currentTx } from './tx-scope';
import type { Db } from './types';

/**
 * Hand-written SQL that runs on both engines (ADR 033 §2), for the queries the builder can't say or that are hot.
 * Write it once, portably: `?` placeholders, double-quoted camelCase aliases (`owner_id as "ownerId"`: Postgres
 * folds unquoted names to lower case), `coalesce` not `ifnull`, `on conflict … do nothing` not `insert or ignore`,
 * no json_extract/json_each/changes()/unixepoch (use the builder, or `run()`'s count of changed rows).
 * Parameters may be strings, numbers, null, booleans, Dates and lists (for `inList()` of ./dialect.ts). Rows come back as SQLite returns them on either
 * engine: whole numbers and timestamps (epoch ms) as numbers, booleans as 1/0, JSON columns as their text.
 * Inside writeTx they run in the transaction; outside, they read committed rows.
 */
export type Param = string | number | null | boolean | Date | readonly (string | number)[];

export type Statement = {
  all<T>(...params: Param[]): Promise<T[]>;
  get<T>(...params: Param[]): Promise<T | undefined>;
  /** Rows changed (written statements). */
  run(...params: Param[]): Promise<number>;
};

export function statement(text: string): Statement {
  const numbered = toNumbered(text);
  return {
    all: <T>(...params: Param[]) => query<T>(text, numbered, params, 'all', true).then((r) => r.rows),
    get: <T>(...params: Param[]) => query<T>(text, numbered, params, 'get', true).then((r) => r.rows[0]),
    run: (...params: Param[]) => query(text, numbered, params, 'run', true).then((r) => r.changes),
  };
}

/** A drizzle `sql` template, run as hand-written SQL (same rules and row shapes as `statement`). */
export async function rows<T>(sqlQuery: SQL): Promise<T[]> {
  const { sqlite, postgres } = render(sqlQuery);
  return (await query<T>(sqlite.sql, postgres.sql, (activeEngine().kind === 'sqlite' ? sqlite : postgres).params as Param[], 'all')).rows;
}

/** A drizzle `sql` template that writes; answers the number of rows changed. */
export async function execute(sqlQuery: SQL): Promise<number> {
  const { sqlite, postgres } = render(sqlQuery);
  return (await query(sqlite.sql, postgres.sql, (activeEngine().kind === 'sqlite' ? sqlite : postgres).params as Param[], 'run')).changes;
}

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

function render(sqlQuery: SQL) {
  return activeEngine().kind === 'sqlite'
    ? { sqlite: sqliteDialect.sqlToQuery(sqlQuery), postgres: { sql: '', params: [] } }
    : { sqlite: { sql: '', params: [] }, postgres: pgDialect.sqlToQuery(sqlQuery) };
}

type Mode = 'all' | 'get' | 'run';

async function query<T>(
  sqliteText: string,
  pgText: string,
  params: Param[],
  mode: Mode,
  named = false,
): Promise<{ rows: T[]; changes: number }> {
  const engine = activeEngine();
  if (engine.kind === 'sqlite') {
    const db = currentTx()?.db ?? engine.sqlite.reader;
    const compiled = compile(db, sqliteText);
    const values = params.map(sqliteValue);
    if (mode === 'run') return { rows: [], changes: compiled.run(...values).changes };
    if (mode === 'get') {
      const row = compiled.get(...values) as T | undefined;
      return { rows: row === undefined ? [] : [row], changes: 0 };
    }
    return { rows: compiled.all(...values) as T[], changes: 0 };
  }
  const open = currentTx();
  // Outside a transaction this may be the process's first query: wait for the migrations (at once once done).
  if (!open) await engine.ready;
  const client = (open?.client as pg.PoolClient | undefined) ?? engine.pg.pool;
  const result = await client.query({ text: pgText, values: params, types: RAW_TYPES, name: named ? statementName(pgText) : undefined });
  return { rows: result.rows as T[], changes: result.rowCount ?? 0 };
}

function sqliteValue(value: Param) {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return JSON.stringify(value);
  return value;
}

// Compiled statements per connection and SQL text; a connection that closes takes its statements with it.
const compiledByConnection = new WeakMap<Db, Map<string, Database.Statement>>();
const MAX_COMPILED = 500;

function compile(db: Db, text: string): Database.Statement {
  let compiled = compiledByConnection.get(db);
  if (!compiled) compiledByConnection.set(db, (compiled = new Map()));
  let statement = compiled.get(text);
  if (!statement) {
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    statement = db.$client.prepare(text);
    compiled.set(text, statement);
  }
  return statement;
}

/** `?` → `$1, $2, …`, outside quoted strings and identifiers. */
export function toNumbered(text: string): string {
  let n = 0;
  let quote: string | undefined;
  let out = '';
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '?') {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

const names = new Map<string, string>();

/**
 * Postgres prepares a named statement once per connection and reuses it (fixed texts only: `statement()`). The name
 * is a hash of the text, not a counter: route bundles load their own copies of this module, and on one pooled
 * connection two copies' counters would give one name to different statements.
 */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `e_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

const { builtins } = pg.types;
/** '2026-12-01 15:00:00.123+00' → epoch ms. */
const asMs = (text: string) => Date.parse(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));

/** Row values in SQLite's shapes (see the module comment). */
const RAW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    switch (oid) {
      case builtins.TIMESTAMPTZ:
      case builtins.TIMESTAMP:
        return asMs;
      case builtins.BOOL:
        return (text: string) => (text === 't' ? 1 : 0);
      case builtins.JSON:
      case builtins.JSONB:
        return (text: string) => text;
      default:
        return pg.types.getTypeParser(oid, format ?? 'text');
    }
  },
} as pg.CustomTypesConfig;
