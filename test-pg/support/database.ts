import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A throw-away database of this run, dropped by drop() (and by test-pg/run.mjs if a test dies): created empty, or with
 * `migrated` a copy of the run's template, which test-pg/run.mjs migrated once (the app's migrator then finds
 * nothing to do on it).
 */
export type FreshDatabase = {
  name: string;
  url: string;
  pool: pg.Pool;
  drop: () => Promise<void>;
  /**
   * End the pool, then drop the database without waiting for it: a drop takes Postgres 0.5–1 s (it forces a
   * checkpoint and waits for every backend to close the database's files), time a test file's worker can spend on the
   * next file. A drop that fails is reported, and test-pg/run.mjs drops whatever is left when the run ends.
   */
  dropInBackground: () => Promise<void>;
};

function settings(): { adminUrl: string; prefix: string; template: string | undefined } {
  const adminUrl = process.env.PG_TEST_ADMIN_URL;
  const prefix = process.env.PG_TEST_PREFIX;
  if (!adminUrl || !prefix) throw new Error('Run the Postgres suites with `npm run test:pg` (it names the run and checks the server).');
  return { adminUrl, prefix, template: process.env.PG_TEST_TEMPLATE };
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

export async function freshDatabase({ migrated = false }: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  const { adminUrl, prefix, template } = settings();
  if (migrated && !template) throw new Error('No migrated template: run the Postgres suites with `npm run test:pg`.');
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await asAdmin((client) => client.query(migrated ? `create database "${name}" template "${template}"` : `create database "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  return {
    name,
    url: url.toString(),
    pool,
    drop: async () => {
      await pool.end();
      await asAdmin((client) => dropDatabase(client, name));
    },
    dropInBackground: async () => {
      await pool.end();
      asAdmin((client) => dropDatabase(client, name)).catch((error: unknown) =>
        console.error(`test:pg: could not drop ${name} (the run drops it when it ends): ${error instanceof Error ? error.message : String(error)}`),
      );
    },
  };
}

/**
 * Drop a database of this run. pool.end() (this file's pool, or a test's own pools on the database) answers before
 * the server has seen every connection close. A forced drop then terminates those backends, and a client still
 * closing hears the server's 57P01 after its pool stopped listening for it: an uncaught error, blamed on whichever
 * test file runs next in the worker. So wait, bounded, until no backend is left; `with (force)` stays for a test
 * that leaked a connection.
 */
export async function dropDatabase(admin: pg.Client, name: string): Promise<void> {
  for (let i = 0; i < 40; i += 1) {
    const { rows } = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
    if (rows[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await admin.query(`drop database if exists "${name}" with (force)`);
}
