import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquirePgServiceLock, PgServiceLockError } from '@/server/db/pg-service-lock';
import { until } from '@/test/support/wait';
import { freshDatabase, type FreshDatabase } from './support/database';

// server/db/pg-service-lock.ts: until leases exist, one scheduling process per Postgres database — a second must
// refuse to start (two schedulers would run the same jobs twice), and a holder that loses its connection is told.

let database: FreshDatabase;
beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe('the Postgres service lock', () => {
  it('a second process is refused while the first holds it, with a message that names the database without its password; it is free after release', async () => {
    const first = await acquirePgServiceLock(database.url, () => {
      throw new Error('must not be lost');
    });
    const withPassword = new URL(database.url);
    withPassword.password = 's3cret';
    const second = acquirePgServiceLock(database.url, () => undefined);
    await expect(second).rejects.toBeInstanceOf(PgServiceLockError);
    await expect(second).rejects.toThrow(/several app processes on one Postgres database are not supported yet/);
    const error = (await acquirePgServiceLock(withPassword.toString(), () => undefined).catch((e: Error) => e)) as Error;
    expect(error.message).not.toContain('s3cret');
    await first.release();
    const again = await acquirePgServiceLock(database.url, () => undefined);
    await again.release();
  });

  it('a holder whose connection is cut hears of it (it must stop), and the lock is free for another', async () => {
    const lost: Error[] = [];
    await acquirePgServiceLock(database.url, (error) => lost.push(error));
    await database.pool.query(
      `select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and objid = hashtext('ensemble:service')::oid and database = (select oid from pg_database where datname = current_database())`,
    );
    await until(() => lost.length > 0, 3_000, 'the holder to hear of the loss');
    const next = await acquirePgServiceLock(database.url, () => undefined);
    await next.release();
  });
});
