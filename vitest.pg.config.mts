import { defineConfig } from 'vitest/config';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// The Postgres suites: `npm run test:pg` (test-pg/run.mjs checks that a Postgres answers and names the run's
// throw-away databases; run through it, not directly). test-pg/** holds what only Postgres has. The integration
// suites of test/** run here too, unchanged, each file on a database of its own (test/support/setup.ts): every test
// file that reaches the server's code, except those marked `// test:pg skip: <why>` (what only SQLite has).
const integrationSuites = (fs.readdirSync(path.join(import.meta.dirname, 'test'), { recursive: true }) as string[])
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => path.join('test', name))
  .filter((file) => {
    const text = fs.readFileSync(path.join(import.meta.dirname, file), 'utf8');
    return /from '@\/server\/|from '\.\.\/support\/(users|teams|scheduler|action-session)'/.test(text) && !/^\/\/ test:pg skip: /m.test(text);
  });

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      'server-only': path.resolve(import.meta.dirname, 'test/support/server-only.ts'),
    },
  },
  test: {
    include: ['test-pg/**/*.test.ts', ...integrationSuites],
    setupFiles: ['test/support/setup.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker here waits on Postgres about half its time (one worker left 45 % of two cores idle): one more worker
    // than the cores keeps them busy (docs/performance.md, CI).
    maxWorkers: os.availableParallelism() + 1,
  },
});
