import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, inject, vi } from 'vitest';

// A worker may run file after file in one process (vitest.config.mts, project 'shared'; ADR 037): each file starts from the
// app's modules loaded afresh, no process-wide state of the app's (below, afterAll) and the environment as it was.
vi.resetModules();
const environment = { ...process.env };
// The worker's own process.env object, as the first file found it: Vitest's import.meta.env, through which
// vi.stubEnv undoes a variable that was unset, deletes from that object. A file that replaced process.env
// (`process.env = { ...saved }`) gets it back after it (afterAll), or a later file's undo would miss.
const processEnv = ((globalThis as Record<symbol, NodeJS.ProcessEnv>)[Symbol.for('ensemble.test.process-env')] ??= process.env);

// Each test file gets its own data directory.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-test-'));
process.env.DATA_DIR = dir;
process.env.MIGRATIONS_DIR = path.resolve(__dirname, '../../drizzle');
// Cheap scrypt for tests (2^10 instead of 2^15); the non-blocking test sets its own cost.
process.env.SCRYPT_LOG_N = '10';
process.env.AUTH_SECRET = 'test-secret-test-secret-test-secret';

// Under `npm run test:pg` the same suites run on Postgres: each file gets a throw-away database of its own, a copy of
// the run's migrated template (test-pg/run.mjs names the run, migrates the template and drops whatever is left when it
// ends).
const postgres = process.env.PG_TEST_PREFIX ? await (await import('../../test-pg/support/database')).freshDatabase({ migrated: true }) : undefined;
if (postgres) process.env.DATABASE_URL = postgres.url;
else delete process.env.DATABASE_URL;
// On SQLite the file's database starts as a copy of the run's migrated template (test/support/sqlite-template.ts),
// owner-only as the app makes it (server/db/paths.ts); the app's migrator finds nothing left to do on it.
const sqliteTemplate = postgres ? undefined : inject('sqliteTemplate');
if (sqliteTemplate) {
  fs.copyFileSync(sqliteTemplate, path.join(dir, 'ensemble.db'));
  fs.chmodSync(path.join(dir, 'ensemble.db'), 0o600);
}

type Leftovers = {
  __ensembleRuntime?: unknown;
  __ensembleCheckpointer?: unknown;
  __ensembleRunRuntime?: { active: Map<string, { controller: AbortController; promise: Promise<void> }> };
};

afterAll(async () => {
  try {
    await teardown();
  } finally {
    // Even after a failed teardown: the next file in this worker must not inherit this one's state — a replaced
    // process.env, a stubbed global or variable, a faked clock, and the app's process-wide state, which it keeps on
    // globalThis under __ensemble… (one copy per process, whichever bundle loads a module).
    process.env = processEnv;
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
    vi.useRealTimers();
    for (const key of Object.getOwnPropertyNames(globalThis)) if (key.startsWith('__ensemble')) delete (globalThis as Record<string, unknown>)[key];
    for (const key of Object.keys(process.env)) if (!(key in environment)) delete process.env[key];
    Object.assign(process.env, environment);
  }
});

async function teardown() {
  // Work a test left going (a scheduler, a run) must not outlive the file's database: stop it first. Only what this
  // file started is touched (the globals are set only once those modules ran).
  const g = globalThis as unknown as Leftovers;
  if (g.__ensembleRuntime) await (await import('@/server/scheduler/runtime')).stopScheduler();
  const runs = [...(g.__ensembleRunRuntime?.active.values() ?? [])];
  for (const run of runs) run.controller.abort();
  await Promise.allSettled(runs.map((run) => run.promise));
  // Then the checkpointer, as shutdown does (server/startup.ts): a finished run's thread maintenance (deferred past
  // the run's end) does nothing once it is closed. Still open, it would read through getDb() after closeDb() and so
  // open a new pool on the database being dropped ('terminating connection due to administrator command').
  if (g.__ensembleCheckpointer) (await import('@/server/agents/checkpointer')).closeCheckpointer();
  const { closeDb } = await import('@/server/db');
  await closeDb();
  // The file's pools are closed above; the drop itself need not hold up the worker's next file.
  await postgres?.dropInBackground();
  fs.rmSync(dir, { recursive: true, force: true });
}
