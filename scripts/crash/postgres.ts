/**
 * The crash test's Postgres: a throw-away database per run on the local server (trust auth), and a look at which
 * teams a process holds before it is killed (team leases, ADR 033 §5, once they exist).
 */
import pg from 'pg';

/** The server every run's database is created on; CRASH_PG_URL overrides (its database is only connected to). */
export const ADMIN_URL = process.env.CRASH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export class NoPostgresError extends Error {}

export type CrashDatabase = { name: string; url: string; drop: () => Promise<void> };

/** Create `ensemble_crash_<seed>` (dropping a leftover of the same seed first). */
export async function createCrashDatabase(seed: number): Promise<CrashDatabase> {
  const name = `ensemble_crash_${seed}`;
  try {
    await asAdmin((client) => client.query('select 1'));
  } catch (err) {
    const u = new URL(ADMIN_URL);
    throw new NoPostgresError(`no Postgres answers at ${u.host} (${(err as Error).message || (err as { code?: string }).code}); start one or set CRASH_PG_URL.`);
  }
  await asAdmin(async (client) => {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
  });
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => asAdmin((client) => client.query(`drop database if exists "${name}" with (force)`)).then(() => undefined) };
}

export type LeaseSnapshot = { processId: string | null; teams: string[] | null };

/**
 * The process row (app_processes) of the live process with this pid and the teams it holds a live lease on, or
 * nulls when the deployment has no leases (one process: it holds every team). Read just before the kill.
 */
export async function leasesOf(url: string, pid: number): Promise<LeaseSnapshot> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>(`select to_regclass('team_leases') as t`);
    if (rows[0]?.t == null) return { processId: null, teams: null };
    const process = await client.query<{ id: string }>(`select id from app_processes where pid = $1 order by heartbeat_at desc limit 1`, [pid]);
    const processId = process.rows[0]?.id ?? null;
    const leases = await client.query<{ team_id: string }>(`select team_id from team_leases where process_id = $1 and expires_at > now()`, [processId]);
    return { processId, teams: leases.rows.map((r) => r.team_id) };
  } finally {
    await client.end();
  }
}

/** Each process's last recorded beat (app_processes.heartbeat_at, epoch ms); empty before the table exists. */
export async function lastBeats(url: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string | null }>(`select to_regclass('app_processes') as t`);
    if (rows[0]?.t == null) return new Map();
    const beats = await client.query<{ id: string; at: Date }>(`select id, heartbeat_at as at from app_processes`);
    return new Map(beats.rows.map((r) => [r.id, r.at.getTime()]));
  } finally {
    await client.end();
  }
}
