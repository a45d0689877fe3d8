import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from './support/database';

// The Postgres behaviour ADR 033's design stands on, pinned so an upgrade that changes it fails here first:
// NOTIFY is transactional and in commit order (push, §6); an advisory transaction lock serializes planning passes
// and is released when its holder's session dies (admission, §4); SKIP LOCKED lets claimers pass each other (leases, §5).

describe('Postgres guarantees the design relies on', () => {
  let db: FreshDatabase;
  const clients: pg.Client[] = [];

  async function client(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: db.url });
    c.on('error', () => undefined); // a terminated backend (below) reports here; the test checks the effect instead
    await c.connect();
    clients.push(c);
    return c;
  }

  /** Resolves with the first `count` payloads received on `channel`, or rejects after a bound. */
  function received(listener: pg.Client, count: number, ms = 5_000): Promise<string[]> {
    const payloads: string[] = [];
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(payloads)} within ${ms} ms`)), ms);
      listener.on('notification', (n) => {
        payloads.push(n.payload ?? '');
        if (payloads.length === count) {
          clearTimeout(timer);
          resolve(payloads);
        }
      });
    });
  }

  beforeAll(async () => {
    db = await freshDatabase();
    await db.pool.query('create table teams (id text primary key, has_pending integer not null)');
    await db.pool.query(`insert into teams values ('t1', 1), ('t2', 1), ('t3', 1)`);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await db?.drop();
  });

  it('delivers a NOTIFY only when its transaction commits, and in commit order', async () => {
    const listener = await client();
    await listener.query('listen ensemble_push');
    const got = received(listener, 2);
    const a = await client();
    const b = await client();
    await a.query('begin');
    await a.query(`select pg_notify('ensemble_push', 'first begun, committed second')`);
    await b.query('begin');
    await b.query(`select pg_notify('ensemble_push', 'rolled back')`);
    await b.query('rollback');
    await b.query('begin');
    await b.query(`select pg_notify('ensemble_push', 'second begun, committed first')`);
    await b.query('commit');
    await a.query('commit');
    expect(await got).toEqual(['second begun, committed first', 'first begun, committed second']);
  });

  it('serializes holders of one advisory transaction lock, and frees it when the holder is killed', async () => {
    const holder = await client();
    const waiter = await client();
    await holder.query('begin');
    await holder.query(`select pg_advisory_xact_lock(hashtext('ensemble:planner'))`);
    await waiter.query('begin');
    expect((await waiter.query(`select pg_try_advisory_xact_lock(hashtext('ensemble:planner')) as got`)).rows[0].got).toBe(false);

    const pid = (await holder.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const admin = await client();
    expect((await admin.query('select pg_terminate_backend($1) as done', [pid])).rows[0].done).toBe(true);
    // Termination is asynchronous: poll, bounded, until the lock is free.
    let got = false;
    for (let i = 0; i < 50 && !got; i += 1) {
      got = (await waiter.query(`select pg_try_advisory_xact_lock(hashtext('ensemble:planner')) as got`)).rows[0].got as boolean;
      if (!got) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(got).toBe(true);
    await waiter.query('rollback');
  });

  it('lets claimers with FOR UPDATE SKIP LOCKED take disjoint rows without waiting', async () => {
    const first = await client();
    const second = await client();
    const claim = (c: pg.Client) =>
      c.query<{ id: string }>(`select id from teams where has_pending = 1 order by id limit 2 for update skip locked`);
    await first.query('begin');
    await second.query('begin');
    const a = (await claim(first)).rows.map((r) => r.id);
    const b = (await claim(second)).rows.map((r) => r.id);
    await first.query('commit');
    await second.query('commit');
    expect(a).toEqual(['t1', 't2']);
    expect(b).toEqual(['t3']);
  });
});
