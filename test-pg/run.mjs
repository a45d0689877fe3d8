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

// Lower-case letters, digits and underscores only: database names built from it need no quoting rules.
const prefix = `ensemble_test_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;

async function dropRunDatabases() {
  const client = await connect();
  try {
    const { rows } = await client.query(`select datname from pg_database where datname like $1`, [`${prefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
    return rows.length;
  } finally {
    await client.end();
  }
}

const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
const child = spawn(vitest, ['run', '--config', 'vitest.pg.config.mts', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PG_TEST_ADMIN_URL: url, PG_TEST_PREFIX: prefix },
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
if (dropped > 0) console.log(`test:pg: dropped ${dropped} throw-away database(s) left by the run.`);
process.exit(code);
