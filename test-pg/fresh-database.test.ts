import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropDatabase, freshDatabase } from './support/database';

// test-pg/support/database.ts: every Postgres test file drops its throw-away database in its teardown, right after
// ending its pools. What must not happen: a client of a pool that has just ended hears the forced drop's
// "terminating connection" (57P01). Its pool then emits 'error' with no one listening: an uncaught error blamed on
// whichever file runs next in the worker (it failed a CI run once, every test green). Dropping at once, as the
// helper did, 11 of 40 drops in this loop did it (12 of 40 in another run), so 25 drops without one is no luck.

describe('dropping a throw-away database', () => {
  let admin: pg.Client;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.PG_TEST_ADMIN_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
  });

  it('right after its pools ended terminates no connection that is still closing', async () => {
    const heard: unknown[] = [];
    const closed: Array<Promise<void>> = [];
    for (let i = 0; i < 25; i += 1) {
      const db = await freshDatabase();
      const pools = [db.pool, ...[0, 1].map(() => new pg.Pool({ connectionString: db.url, max: 2 }))];
      for (const pool of pools) {
        pool.on('error', (error) => heard.push(error));
        // Each connection's end: once every one has closed, no late error can arrive.
        pool.on('connect', (client) => closed.push(new Promise((resolve) => client.once('end', () => resolve()))));
      }
      await Promise.all(
        pools.map(async (pool) => {
          const client = await pool.connect();
          await client.query('select 1');
          client.release();
        }),
      );
      await Promise.all(pools.map((pool) => pool.end()));
      await dropDatabase(admin, db.name);
    }
    await Promise.all(closed);
    expect(closed).toHaveLength(25 * 3);
    expect(heard).toEqual([]);
  });

  it('still drops a database a test left a connection open on, after its bounded wait', async () => {
    const db = await freshDatabase();
    await db.pool.end();
    const leaked = new pg.Client({ connectionString: db.url });
    // It hears the termination, then its connection's end: both are errors of this client.
    const errors: Array<{ code?: string }> = [];
    const ended = new Promise<void>((resolve) => leaked.once('end', () => resolve()));
    leaked.on('error', (error) => errors.push(error as { code?: string }));
    await leaked.connect();
    await dropDatabase(admin, db.name);
    await ended;
    expect(errors[0]?.code).toBe('57P01');
    const { rows } = await admin.query('select 1 from pg_database where datname = $1', [db.name]);
    expect(rows).toEqual([]);
  });
});
