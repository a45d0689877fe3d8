import { defineConfig } from 'vitest/config';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { testFiles, workerProjects } from './test/support/isolated-suites.mts';
import { appResolve } from './test/support/vitest-resolve.mts';

// The Postgres suites: `npm run test:pg` (test-pg/run.mjs checks that a Postgres answers and names the run's
// throw-away databases; run through it, not directly). test-pg/** holds what only Postgres has. The integration
// suites of test/** run here too, unchanged, each file on a database of its own (test/support/setup.ts): every test
// file that reaches the server's code, except those marked `// test:pg skip: <why>` (what only SQLite has).
const root = import.meta.dirname;
const integrationSuites = testFiles(root, 'test').filter((file) => {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return /from '@\/server\/|from '\.\.\/support\/(users|teams|scheduler|action-session)'/.test(text) && !/^\/\/ test:pg skip: /m.test(text);
});

export default defineConfig({
  resolve: appResolve(root),
  test: {
    setupFiles: ['test/support/setup.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // As in vitest.config.mts: a larger young generation for what loading the app's modules allocates.
    execArgv: ['--max-semi-space-size=64'],
    // A worker here waits on Postgres about half its time (one worker left 45 % of two cores idle): one more worker
    // than the cores keeps them busy (docs/performance.md, CI).
    maxWorkers: os.availableParallelism() + 1,
    // As in vitest.config.mts: files share a worker's process unless they need one of their own.
    projects: workerProjects(root, [...testFiles(root, 'test-pg'), ...integrationSuites]),
  },
});
