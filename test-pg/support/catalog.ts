import { getTableConfig, PgDialect, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { getTableName, type SQL } from 'drizzle-orm';
import type pg from 'pg';

/**
 * One table as Postgres itself describes it (pg_catalog), and as server/db/pg-schema.ts declares it, in the same
 * words, so the migrations can be checked against the schema file. Types are format_type()'s spelling; defaults are
 * pg_get_expr()'s; an identity column has no default and says 'by default' or 'always'.
 */
export type CatalogColumn = { type: string; notNull: boolean; default: string | null; identity: string | null };
export type CatalogTable = { columns: Record<string, CatalogColumn>; primaryKey: string[]; keys: string[] };

const dialect = new PgDialect();
const list = (names: readonly string[]) => `(${names.join(', ')})`;
const fkAction = (action: string | undefined) => action ?? 'no action';

function declaredDefault(column: PgColumn): string | null {
  const value = column.default;
  if (value === undefined || column.generatedIdentity) return null;
  if (value !== null && typeof value === 'object' && 'queryChunks' in value) return dialect.sqlToQuery(value as SQL).sql;
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'::text`;
  return String(value);
}

export function declaredShape(table: PgTable): CatalogTable {
  const config = getTableConfig(table);
  const columns: Record<string, CatalogColumn> = {};
  for (const c of config.columns) {
    columns[c.name] = {
      // drizzle spells 'timestamp (3) with time zone'; format_type spells 'timestamp(3) with time zone'.
      type: c.getSQLType().replace(' (', '('),
      notNull: c.notNull,
      default: declaredDefault(c),
      identity: c.generatedIdentity ? (c.generatedIdentity.type === 'always' ? 'always' : 'by default') : null,
    };
  }
  const keys = [
    ...config.columns.filter((c) => c.isUnique).map((c) => `unique ${c.uniqueName} ${list([c.name])}`),
    ...config.uniqueConstraints.map((u) => `unique ${u.getName()} ${list(u.columns.map((c) => c.name))}`),
    ...config.indexes.map(
      (i) =>
        `${i.config.unique ? 'unique index' : 'index'} ${i.config.name} ${list(i.config.columns.map((c) => (c as { name: string }).name))} using ${i.config.method ?? 'btree'}`,
    ),
    ...config.foreignKeys.map((f) => {
      const ref = f.reference();
      return `foreign key ${f.getName()} ${list(ref.columns.map((c) => c.name))} → ${getTableName(ref.foreignTable)}${list(ref.foreignColumns.map((c) => c.name))} on delete ${fkAction(f.onDelete)} on update ${fkAction(f.onUpdate)}`;
    }),
  ].sort();
  return {
    columns,
    primaryKey: [...config.columns.filter((c) => c.primary).map((c) => c.name), ...config.primaryKeys.flatMap((k) => k.columns.map((c) => c.name))],
    keys,
  };
}

const FK_ACTIONS: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

/** The ordinary tables of the public schema. */
export async function catalogTables(client: pg.Pool | pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`);
  return rows.map((r) => r.name);
}

export async function catalogShape(client: pg.Pool | pg.Client, table: string): Promise<CatalogTable> {
  const relation = `public."${table}"`;
  const columns = await client.query<{ name: string; type: string; not_null: boolean; def: string | null; identity: string }>(
    `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null,
            pg_get_expr(d.adbin, d.adrelid) as def, a.attidentity as identity
       from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
      order by a.attnum`,
    [relation],
  );
  // Column lists in key order (unnest … with ordinality), for constraints and for indexes.
  const constraints = await client.query<{ name: string; type: string; cols: string[]; ftable: string | null; fcols: string[] | null; del: string; upd: string }>(
    `select c.conname as name, c.contype as type,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as cols,
            c.confrelid::regclass::text as ftable,
            array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                    join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as fcols,
            c.confdeltype as del, c.confupdtype as upd
       from pg_constraint c where c.conrelid = $1::regclass`,
    [relation],
  );
  const indexes = await client.query<{ name: string; unique: boolean; method: string; cols: string[] }>(
    `select ic.relname as name, i.indisunique as unique, am.amname as method,
            array(select a.attname::text from unnest(i.indkey) with ordinality k(n, o)
                    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n order by k.o) as cols
       from pg_index i
       join pg_class ic on ic.oid = i.indexrelid
       join pg_am am on am.oid = ic.relam
      where i.indrelid = $1::regclass
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid and c.conrelid = i.indrelid)`,
    [relation],
  );
  const shape: CatalogTable = { columns: {}, primaryKey: [], keys: [] };
  for (const c of columns.rows) {
    shape.columns[c.name] = {
      type: c.type,
      notNull: c.not_null,
      default: c.def,
      identity: c.identity === 'd' ? 'by default' : c.identity === 'a' ? 'always' : null,
    };
  }
  for (const c of constraints.rows) {
    // Postgres 18 lists NOT NULL as constraints too (type 'n'); nullability is compared per column above.
    if (c.type === 'n') continue;
    if (c.type === 'p') shape.primaryKey = c.cols;
    else if (c.type === 'u') shape.keys.push(`unique ${c.name} ${list(c.cols)}`);
    else if (c.type === 'f') {
      const foreignTable = c.ftable!.replace(/^public\./, '').replaceAll('"', '');
      shape.keys.push(
        `foreign key ${c.name} ${list(c.cols)} → ${foreignTable}${list(c.fcols ?? [])} on delete ${FK_ACTIONS[c.del]} on update ${FK_ACTIONS[c.upd]}`,
      );
    } else shape.keys.push(`constraint ${c.name} of type ${c.type}`);
  }
  for (const i of indexes.rows) shape.keys.push(`${i.unique ? 'unique index' : 'index'} ${i.name} ${list(i.cols)} using ${i.method}`);
  shape.keys.sort();
  return shape;
}
