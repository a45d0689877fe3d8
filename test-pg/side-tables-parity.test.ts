import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_TABLES_SQL } from '@/server/agents/checkpoint/schema';
import { createSideTables } from '@/server/agents/checkpoint/side-tables';
import { freshDatabase, type FreshDatabase } from './support/database';

// The checkpoint side's own tables (run_events, thread_compactions) are DDL on both engines, not drizzle schemas, so
// the schema parity test (test/db/schema-parity.test.ts) does not see them. This proves the two DDLs describe the
// same tables: columns in order, which may be null, the same kind of value, the same primary key and indexes.
// Types differ on purpose (side-tables.ts): SQLite INTEGER is Postgres integer or bigint (epoch ms); TEXT is text
// or json (a summary may hold a raw NUL, which text refuses).

const TABLES = ['run_events', 'thread_compactions'];
/** Indexes besides the key: run_events is read by thread (its deletion with the thread). */
const INDEXES: Record<string, Record<string, string[]>> = { run_events: { run_events_thread_idx: ['thread_id'] }, thread_compactions: {} };
type Shape = { columns: Array<{ name: string; notNull: boolean; kind: 'integer' | 'text' }>; primaryKey: string[]; indexes: Record<string, string[]> };

function sqliteShape(db: Database.Database, table: string): Shape {
  const info = db.prepare(`select name, type, "notnull" as "notNull", pk from pragma_table_info(?) order by cid`).all(table) as Array<{ name: string; type: string; notNull: number; pk: number }>;
  const indexes: Record<string, string[]> = {};
  for (const { name, origin } of db.prepare(`select name, origin from pragma_index_list(?)`).all(table) as Array<{ name: string; origin: string }>) {
    if (origin !== 'c') continue; // the primary key's own index is compared as the key
    indexes[name] = (db.prepare(`select name from pragma_index_info(?) order by seqno`).all(name) as Array<{ name: string }>).map((r) => r.name);
  }
  return {
    columns: info.map((c) => ({ name: c.name, notNull: c.notNull === 1 || c.pk > 0, kind: c.type.toUpperCase() === 'INTEGER' ? 'integer' : 'text' })),
    primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
    indexes,
  };
}

async function postgresShape(database: FreshDatabase, schema: string, table: string): Promise<Shape> {
  const { rows: columns } = await database.pool.query<{ name: string; type: string; nullable: string }>(
    `select column_name as name, data_type as type, is_nullable as nullable from information_schema.columns
      where table_schema = $1 and table_name = $2 order by ordinal_position`,
    [schema, table],
  );
  const { rows: key } = await database.pool.query<{ name: string }>(
    `select a.attname as name from pg_index i
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = ($1 || '.' || $2)::regclass and i.indisprimary
      order by array_position(i.indkey, a.attnum)`,
    [schema, table],
  );
  const { rows: indexRows } = await database.pool.query<{ index: string; name: string }>(
    `select c.relname as index, a.attname as name from pg_index i
       join pg_class c on c.oid = i.indexrelid
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = ($1 || '.' || $2)::regclass and not i.indisprimary
      order by c.relname, array_position(i.indkey, a.attnum)`,
    [schema, table],
  );
  const indexes: Record<string, string[]> = {};
  for (const r of indexRows) (indexes[r.index] ??= []).push(r.name);
  return {
    columns: columns.map((c) => ({ name: c.name, notNull: c.nullable === 'NO', kind: c.type === 'integer' || c.type === 'bigint' ? 'integer' : 'text' })),
    primaryKey: key.map((k) => k.name),
    indexes,
  };
}

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe('checkpoint side tables: the SQLite and Postgres DDL describe the same tables', () => {
  it.each(TABLES)('%s', async (table) => {
    const sqlite = new Database(':memory:');
    sqlite.exec(CHECKPOINT_TABLES_SQL);
    await database.pool.query('create schema side_parity');
    try {
      const client = await database.pool.connect();
      try {
        await createSideTables(client, 'side_parity');
      } finally {
        client.release();
      }
      const expected = sqliteShape(sqlite, table);
      // Something to compare: a test over two empty descriptions would prove nothing.
      expect(expected.columns.length).toBeGreaterThan(4);
      expect(expected.primaryKey.length).toBe(2);
      expect(expected.indexes).toEqual(INDEXES[table]);
      expect(await postgresShape(database, 'side_parity', table)).toEqual(expected);
    } finally {
      sqlite.close();
      await database.pool.query('drop schema side_parity cascade');
    }
  });
});
