import { defineConfig } from 'vitest/config';
import os from 'node:os';
import path from 'node:path';

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      'server-only': path.resolve(import.meta.dirname, 'test/support/server-only.ts'),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 15_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on CI's two, where a file's import time left
    // the second core idle. Two there halve the suite's wall time (docs/performance.md, CI).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
