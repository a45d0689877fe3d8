import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '@/server/db/pg-schema';
import { tablesOf } from '@/test/db/schema-shape';
import { catalogShape, catalogTables, declaredShape } from './support/catalog';
import { freshDatabase, type FreshDatabase } from './support/database';
import { migrateUnderLock } from '@/server/db/pg-migrate';
import pg from 'pg';
import journal from '@/drizzle/pg/meta/_journal.json';

const migrationsFolder = path.resolve(import.meta.dirname, '../drizzle/pg');
const declared = tablesOf<PgTable>(schema, PgTable);

describe('the Postgres migrations (drizzle/pg)', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('start from an empty database', async () => {
    expect(await catalogTables(db.pool)).toEqual([]);
  });

  it('apply on a fresh database and create exactly the tables server/db/pg-schema.ts declares', async () => {
    await migrate(drizzle(db.pool), { migrationsFolder });
    expect(await catalogTables(db.pool)).toEqual([...declared.keys()].sort());
    const applied = await db.pool.query<{ hash: string }>('select hash from drizzle.__drizzle_migrations');
    expect(applied.rows).toHaveLength(journal.entries.length);
  });

  it.each([...declared.keys()].sort())('leave %s as the schema file declares it (columns, types, defaults, keys, indexes)', async (name) => {
    expect(await catalogShape(db.pool, name)).toEqual(declaredShape(declared.get(name)!));
  });

  it('are idempotent: running them again changes nothing', async () => {
    const before = await Promise.all([...declared.keys()].map((name) => catalogShape(db.pool, name)));
    await migrate(drizzle(db.pool), { migrationsFolder });
    await migrate(drizzle(db.pool), { migrationsFolder });
    const applied = await db.pool.query('select hash from drizzle.__drizzle_migrations');
    expect(applied.rows).toHaveLength(journal.entries.length);
    expect(await Promise.all([...declared.keys()].map((name) => catalogShape(db.pool, name)))).toEqual(before);
  });
});

describe('the catalog comparison', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    db = await freshDatabase();
    await migrate(drizzle(db.pool), { migrationsFolder });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('notices a column, an index, a default or a nullability changed by hand after the migrations', async () => {
    await db.pool.query(`alter table users add column nickname text`);
    await db.pool.query(`drop index runs_team_idx`);
    await db.pool.query(`alter table teams alter column revision set default 2`);
    await db.pool.query(`alter table jobs alter column result_truncated set not null`);

    const users = await catalogShape(db.pool, 'users');
    expect(users.columns.nickname).toEqual({ type: 'text', notNull: false, default: null, identity: null });
    expect(users).not.toEqual(declaredShape(schema.users));

    const runs = await catalogShape(db.pool, 'runs');
    const declaredRuns = declaredShape(schema.runs);
    expect(declaredRuns.keys.filter((k) => !runs.keys.includes(k))).toEqual(['index runs_team_idx (team_id) using btree']);

    expect((await catalogShape(db.pool, 'teams')).columns.revision!.default).toBe('2');
    expect(declaredShape(schema.teams).columns.revision!.default).toBe('1');
    expect((await catalogShape(db.pool, 'jobs')).columns.result_truncated!.notNull).toBe(true);
    expect(declaredShape(schema.jobs).columns.result_truncated!.notNull).toBe(false);
  });
});

describe('three processes starting at once on an empty database', () => {
  let db: FreshDatabase;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await db?.drop();
  });

  // Without the lock, 2 of 3 concurrent migrators failed in each of 5 tries here ("relation __drizzle_migrations
  // already exists", a duplicate pg_type row): ADR 033 §8.
  it('all start, under the migration lock, and the migrations are applied once', async () => {
    for (let i = 0; i < 3; i += 1) pools.push(new pg.Pool({ connectionString: db.url, max: 2 }));
    await Promise.all(pools.map((pool) => migrateUnderLock(pool, migrationsFolder)));
    const applied = await db.pool.query('select hash from drizzle.__drizzle_migrations');
    expect(applied.rows).toHaveLength(journal.entries.length);
    expect(await catalogTables(db.pool)).toEqual([...declared.keys()].sort());
  });
});
