#!/usr/bin/env node
// npm run test:pg [-- <vitest args>]
// The Postgres suites (vitest.pg.config.mts, test-pg/**). DATABASE_URL names a database to connect to (default
// postgres://postgres@127.0.0.1:5432/test); tests never touch its tables: each creates throw-away databases named
// after this run, and every one of them is dropped when the run ends, whatever the tests did.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The URL without its password, for messages. */
function shown(text) {
  try {
    const u = new URL(text);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

async function connect() {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  return client;
}

let admin;
try {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error('DATABASE_URL is not a postgres:// URL');
  admin = await connect();
  await admin.query('select 1');
} catch (error) {
  const reason = error?.message || error?.code || String(error);
  console.error(`test:pg: no Postgres answers at ${shown(url)} (${String(reason).split('\n')[0]}); set DATABASE_URL or start one (.ci/run does).`);
  process.exit(1);
}
// A run killed before its clean-up leaves its databases behind; drop those of runs that started over six hours ago
// (the run's start time is in the name), never a run that may still be going.
const stale = await admin.query(`select datname from pg_database where datname like 'ensemble_test_%'`);
for (const { datname } of stale.rows) {
  const started = parseInt(/^ensemble_test_([0-9a-z]+)_/.exec(datname)?.[1] ?? '', 36);
  if (Number.isFinite(started) && Date.now() - started > 6 * 3600_000) {
    await admin.query(`drop database if exists "${datname}" with (force)`);
    console.log(`test:pg: dropped ${datname}, left by a run that did not finish.`);
  }
}
await admin.end();

// Lower-case letters, digits and underscores only: database names built from it need no quoting rules. Every
// database of the run, the template included, starts with it, so the clean-up below finds them all.
const prefix = `ensemble_test_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;

/**
 * Drop every database of this run still there: the template, and those whose test file's worker ended before its
 * background drop did (test/support/setup.ts). A drop mostly waits (Postgres forces a checkpoint for each), so four
 * go at once.
 */
async function dropRunDatabases() {
  const client = await connect();
  let rows;
  try {
    ({ rows } = await client.query(`select datname from pg_database where datname like $1`, [`${prefix}%`]));
  } finally {
    await client.end();
  }
  const names = rows.map((row) => row.datname);
  const dropNext = async () => {
    const dropper = await connect();
    try {
      for (let name = names.pop(); name !== undefined; name = names.pop()) await dropper.query(`drop database if exists "${name}" with (force)`);
    } finally {
      await dropper.end();
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, rows.length) }, dropNext));
  return rows.length;
}

/**
 * Every test file gets a database of its own (test/support/setup.ts), and the app migrates it on first use: 12
 * migrations, about a second of Postgres work per file, ~230 times a run. So the run migrates one database first, the
 * same way (drizzle's migrator over drizzle/pg), and each file's database is a copy of it (`create database … template`),
 * on which the app's migrator still runs and finds nothing left to do. Migrating an empty database is what
 * test-pg/migrations.test.ts and test-pg/fresh-database.test.ts prove, on databases of their own.
 */
async function migratedTemplate() {
  const name = `${prefix}_template`;
  const admin = await connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  // One connection, closed before any copy: Postgres copies a database only while nobody is connected to it.
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    await migrate(drizzle(client), { migrationsFolder: path.join(root, 'drizzle', 'pg') });
  } finally {
    await client.end();
  }
  return name;
}

let template;
try {
  template = await migratedTemplate();
} catch (error) {
  console.error(`test:pg: could not migrate the run's template database: ${error?.message ?? error}`);
  await dropRunDatabases().catch(() => undefined);
  process.exit(1);
}

const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
const child = spawn(vitest, ['run', '--config', 'vitest.pg.config.mts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PG_TEST_ADMIN_URL: url, PG_TEST_PREFIX: prefix, PG_TEST_TEMPLATE: template },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const code = await new Promise((resolve) => child.on('exit', (status, signal) => resolve(status ?? (signal ? 1 : 0))));

let dropped = 0;
try {
  dropped = await dropRunDatabases();
} catch (error) {
  console.error(`test:pg: could not drop the run's databases (${prefix}*): ${error?.message ?? error}`);
  process.exit(code || 1);
}
if (dropped > 0) console.log(`test:pg: dropped the run's ${dropped} remaining throw-away database(s), its template included.`);
process.exit(code);
