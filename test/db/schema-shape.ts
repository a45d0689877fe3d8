import { getTableName, is, type SQL } from 'drizzle-orm';
import { getTableConfig as pgConfig, PgDialect, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteConfig, SQLiteSyncDialect, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * An engine-neutral description of a drizzle table (server/db/schema.ts or server/db/pg-schema.ts), so the two can
 * be compared line by line. Column kinds and defaults go through the stated tables below; anything not listed there
 * keeps an engine-specific name, so it can never match by accident.
 */
export type ColumnShape = {
  kind: string;
  notNull: boolean;
  default: string | null;
  /** An auto-increment (SQLite) or identity (Postgres) key. */
  generated: boolean;
  enumValues: readonly string[] | null;
};

export type TableShape = {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
  /** Unique columns and constraints, indexes, foreign keys: one sorted line each. */
  keys: string[];
};

/** SQLite column class (and mode) → neutral kind. */
const SQLITE_KINDS: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'json',
  SQLiteInteger: 'integer',
  'SQLiteTimestamp:timestamp_ms': 'timestamp (ms)',
  SQLiteBoolean: 'boolean',
};

/** Postgres SQL type → neutral kind. integer and bigint both hold what SQLite's 64-bit integer holds here. */
const PG_KINDS: Record<string, string> = {
  text: 'text',
  json: 'json',
  integer: 'integer',
  bigint: 'integer',
  'timestamp (3) with time zone': 'timestamp (ms)',
  boolean: 'boolean',
};

/** SQL defaults that mean the same on both engines. */
const SQL_DEFAULTS: Record<string, string> = {
  "(unixepoch('subsec') * 1000)": 'now (ms)',
  'now()': 'now (ms)',
};

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

function neutralDefault(value: unknown, json: boolean, render: (s: SQL) => string): string | null {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object' || !('queryChunks' in value)) return `value ${JSON.stringify(value)}`;
  const text = render(value as SQL);
  if (SQL_DEFAULTS[text]) return SQL_DEFAULTS[text];
  // A JSON document written as a string literal: SQLite '[]', Postgres '[]'::json.
  const literal = json ? /^'((?:[^']|'')*)'(?:::json)?$/.exec(text) : null;
  if (literal) return `json ${JSON.stringify(JSON.parse(literal[1]!.replaceAll("''", "'")))}`;
  return `sql ${text}`;
}

const list = (names: readonly string[]) => `(${names.join(', ')})`;

function keysOf(
  columns: ReadonlyArray<{ name: string; isUnique: boolean; uniqueName?: string | undefined }>,
  uniques: ReadonlyArray<{ name: string; columns: string[] }>,
  indexes: ReadonlyArray<{ name: string; unique: boolean; columns: string[] }>,
  foreignKeys: ReadonlyArray<{ name: string; columns: string[]; table: string; foreignColumns: string[]; onDelete: string; onUpdate: string }>,
): string[] {
  return [
    ...columns.filter((c) => c.isUnique).map((c) => `unique ${c.uniqueName} ${list([c.name])}`),
    ...uniques.map((u) => `unique ${u.name} ${list(u.columns)}`),
    ...indexes.map((i) => `${i.unique ? 'unique index' : 'index'} ${i.name} ${list(i.columns)}`),
    ...foreignKeys.map(
      (f) => `foreign key ${f.name} ${list(f.columns)} → ${f.table}${list(f.foreignColumns)} on delete ${f.onDelete} on update ${f.onUpdate}`,
    ),
  ].sort();
}

export function sqliteShape(table: SQLiteTable): TableShape {
  const config = sqliteConfig(table);
  const columns: Record<string, ColumnShape> = {};
  for (const c of config.columns as SQLiteColumn[]) {
    const mode = (c as unknown as { mode?: string }).mode;
    const kind = SQLITE_KINDS[`${c.columnType}:${mode}`] ?? SQLITE_KINDS[c.columnType] ?? `sqlite ${c.columnType}:${mode}`;
    columns[c.name] = {
      kind,
      notNull: c.notNull,
      default: neutralDefault(c.default, kind === 'json', (s) => sqliteDialect.sqlToQuery(s).sql),
      generated: !!(c as unknown as { autoIncrement?: boolean }).autoIncrement,
      enumValues: c.enumValues ?? null,
    };
  }
  return {
    columns,
    primaryKey: [...config.columns.filter((c) => c.primary).map((c) => c.name), ...config.primaryKeys.flatMap((k) => k.columns.map((c) => c.name))],
    keys: keysOf(
      config.columns,
      config.uniqueConstraints.map((u) => ({ name: u.getName() ?? '', columns: u.columns.map((c) => c.name) })),
      config.indexes.map((i) => ({ name: i.config.name, unique: i.config.unique, columns: i.config.columns.map((c) => (c as SQLiteColumn).name) })),
      config.foreignKeys.map((f) => {
        const ref = f.reference();
        return {
          name: f.getName(),
          columns: ref.columns.map((c) => c.name),
          table: getTableName(ref.foreignTable),
          foreignColumns: ref.foreignColumns.map((c) => c.name),
          onDelete: f.onDelete ?? 'no action',
          onUpdate: f.onUpdate ?? 'no action',
        };
      }),
    ),
  };
}

export function pgShape(table: PgTable): TableShape {
  const config = pgConfig(table);
  const columns: Record<string, ColumnShape> = {};
  for (const c of config.columns as PgColumn[]) {
    const kind = PG_KINDS[c.getSQLType()] ?? `postgres ${c.getSQLType()}`;
    columns[c.name] = {
      kind,
      notNull: c.notNull,
      default: neutralDefault(c.default, kind === 'json', (s) => pgDialect.sqlToQuery(s).sql),
      generated: !!c.generatedIdentity,
      enumValues: c.enumValues ?? null,
    };
  }
  return {
    columns,
    primaryKey: [...config.columns.filter((c) => c.primary).map((c) => c.name), ...config.primaryKeys.flatMap((k) => k.columns.map((c) => c.name))],
    keys: keysOf(
      config.columns,
      config.uniqueConstraints.map((u) => ({ name: u.getName() ?? '', columns: u.columns.map((c) => c.name) })),
      config.indexes.map((i) => ({
        name: i.config.name!,
        unique: i.config.unique,
        columns: i.config.columns.map((c) => (c as { name: string }).name),
      })),
      config.foreignKeys.map((f) => {
        const ref = f.reference();
        return {
          name: f.getName(),
          columns: ref.columns.map((c) => c.name),
          table: getTableName(ref.foreignTable),
          foreignColumns: ref.foreignColumns.map((c) => c.name),
          onDelete: f.onDelete ?? 'no action',
          onUpdate: f.onUpdate ?? 'no action',
        };
      }),
    ),
  };
}

/** The tables a schema module exports, by SQL name. */
export function tablesOf<T extends SQLiteTable | PgTable>(module: Record<string, unknown>, kind: typeof SQLiteTable | typeof PgTable): Map<string, T> {
  const tables = new Map<string, T>();
  for (const value of Object.values(module)) if (is(value, kind)) tables.set(getTableName(value as T), value as T);
  return tables;
}

/** Every difference between two shapes, one readable line each; empty when they describe the same table. */
export function diffShapes(table: string, sqlite: TableShape, pg: TableShape): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(sqlite.columns), ...Object.keys(pg.columns)])) {
    const a = sqlite.columns[name];
    const b = pg.columns[name];
    if (!a || !b) {
      out.push(`${table}.${name}: column only on ${a ? 'SQLite' : 'Postgres'}`);
      continue;
    }
    for (const field of ['kind', 'notNull', 'default', 'generated', 'enumValues'] as const) {
      const x = JSON.stringify(a[field]);
      const y = JSON.stringify(b[field]);
      if (x !== y) out.push(`${table}.${name}: ${field} SQLite ${x} ≠ Postgres ${y}`);
    }
  }
  if (JSON.stringify(sqlite.primaryKey) !== JSON.stringify(pg.primaryKey)) {
    out.push(`${table}: primary key SQLite ${list(sqlite.primaryKey)} ≠ Postgres ${list(pg.primaryKey)}`);
  }
  const pgKeys = new Set(pg.keys);
  const sqliteKeys = new Set(sqlite.keys);
  for (const key of sqlite.keys) if (!pgKeys.has(key)) out.push(`${table}: only on SQLite: ${key}`);
  for (const key of pg.keys) if (!sqliteKeys.has(key)) out.push(`${table}: only on Postgres: ${key}`);
  return out;
}

/** Every difference between two schema modules: tables on one side only, then each common table's differences. */
export function diffSchemas(sqliteModule: Record<string, unknown>, pgModule: Record<string, unknown>): string[] {
  const a = tablesOf<SQLiteTable>(sqliteModule, SQLiteTable);
  const b = tablesOf<PgTable>(pgModule, PgTable);
  const out: string[] = [];
  for (const name of a.keys()) if (!b.has(name)) out.push(`${name}: table only on SQLite`);
  for (const name of b.keys()) if (!a.has(name)) out.push(`${name}: table only on Postgres`);
  for (const [name, table] of a) {
    const other = b.get(name);
    if (other) out.push(...diffShapes(name, sqliteShape(table), pgShape(other)));
  }
  return out;
}
