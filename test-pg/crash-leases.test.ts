import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leasesOf } from '@/scripts/crash/postgres';
import { freshDatabase, type FreshDatabase } from './support/database';

// The crash test notes which teams a process holds just before it kills it (scripts/crash/postgres.ts), from the
// lease tables of ADR 033 §5 (created here as that design names them).

let db: FreshDatabase;

beforeAll(async () => {
  db = await freshDatabase();
});

afterAll(async () => {
  await db?.drop();
});

describe('crash test: leases of a process', () => {
  it('knows nothing of leases in a deployment without them', async () => {
    expect(await leasesOf(db.url, 4242)).toEqual({ processId: null, teams: null });
  });

  it('lists the live leases of the process with that pid, not expired ones nor another process’s', async () => {
    await db.pool.query(`create table app_processes (id text primary key, pid integer not null, host text not null, started_at timestamptz(3) not null, heartbeat_at timestamptz(3) not null)`);
    await db.pool.query(`create table team_leases (team_id text primary key, process_id text not null, epoch integer not null, expires_at timestamptz(3) not null)`);
    await db.pool.query(`insert into app_processes values ('p-old', 4242, 'h', now() - interval '1 hour', now() - interval '1 hour'), ('p-live', 4242, 'h', now(), now()), ('p-other', 7, 'h', now(), now())`);
    await db.pool.query(
      `insert into team_leases values ('t1', 'p-live', 1, now() + interval '10 seconds'), ('t2', 'p-live', 3, now() + interval '10 seconds'),
                                      ('t3', 'p-live', 1, now() - interval '1 second'), ('t4', 'p-other', 1, now() + interval '10 seconds'),
                                      ('t5', 'p-old', 1, now() + interval '10 seconds')`,
    );
    const snapshot = await leasesOf(db.url, 4242);
    expect(snapshot.processId).toBe('p-live');
    expect(snapshot.teams?.sort()).toEqual(['t1', 't2']);
    expect(await leasesOf(db.url, 99)).toEqual({ processId: null, teams: [] });
  });
});
