import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A throw-away database of this run: created empty, dropped by drop() (and by test-pg/run.mjs if a test dies). */
export type FreshDatabase = { name: string; url: string; pool: pg.Pool; drop: () => Promise<void> };

function settings(): { adminUrl: string; prefix: string } {
  const adminUrl = process.env.PG_TEST_ADMIN_URL;
  const prefix = process.env.PG_TEST_PREFIX;
  if (!adminUrl || !prefix) throw new Error('Run the Postgres suites with `npm run test:pg` (it names the run and checks the server).');
  return { adminUrl, prefix };
}

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: settings().adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const { adminUrl, prefix } = settings();
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await asAdmin((client) => client.query(`create database "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  return {
    name,
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      await asAdmin((client) => client.query(`drop database if exists "${name}" with (force)`));
    },
  };
}
