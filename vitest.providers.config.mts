import { defineConfig } from 'vitest/config';

// npm run test:providers: the built app against the provider stubs (test-providers/). Not part of `vitest run`
// (vitest.config.mts lists only test/**): it needs a build and starts `next start` in its global setup.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['test-providers/**/*.test.ts'],
    globalSetup: ['test-providers/global-setup.ts'],
    // A build when none is current, then the app's start.
    hookTimeout: 600_000,
    testTimeout: 120_000,
    pool: 'forks',
    // One worker: the cases run concurrently inside their file; the app is the one doing the work.
    maxWorkers: 1,
    fileParallelism: false,
  },
});
