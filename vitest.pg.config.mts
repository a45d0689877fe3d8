import { defineConfig } from 'vitest/config';
import path from 'node:path';

// The Postgres suites: `npm run test:pg` (test-pg/run.mjs checks that a Postgres answers and names the run's
// throw-away databases; run through it, not directly).
export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      'server-only': path.resolve(import.meta.dirname, 'test/support/server-only.ts'),
    },
  },
  test: {
    include: ['test-pg/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
