import { defineConfig } from 'vitest/config';
import path from 'node:path';

// The Postgres suites: `npm run test:pg` (test-pg/run.mjs checks that a Postgres answers and names the run's
// throw-away databases; run through it, not directly). test-pg/** holds what only Postgres has; the integration
// suites of test/** listed below run here too, unchanged, each file on a database of its own (test/support/setup.ts).
const INTEGRATION_SUITES = ['test/db/write-tx.test.ts', 'test/db/statement.test.ts'];
export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      'server-only': path.resolve(import.meta.dirname, 'test/support/server-only.ts'),
    },
  },
  test: {
    include: ['test-pg/**/*.test.ts', ...INTEGRATION_SUITES],
    setupFiles: ['test/support/setup.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
