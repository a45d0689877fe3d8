import 'server-only';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

/**
 * Apply drizzle/pg while holding a session advisory lock on one connection (ADR 033 §8): drizzle's migrator creates
 * its bookkeeping table and reads the last applied migration outside its transaction, so processes starting at once
 * must take turns. Proven by test-pg/migrations.test.ts.
 */
export async function migrateUnderLock(pool: pg.Pool, migrationsFolder: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`select pg_advisory_lock(hashtext('ensemble:migrations'))`);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query(`select pg_advisory_unlock(hashtext('ensemble:migrations'))`);
    }
  } finally {
    client.release();
  }
}
