import { defineConfig } from 'vitest/config';
import os from 'node:os';
import path from 'node:path';
import { needingIsolation, testFiles } from './test/support/isolated-suites.mts';

const root = import.meta.dirname;
const isolated = needingIsolation(root, testFiles(root, 'test'));

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(root),
      'server-only': path.resolve(root, 'test/support/server-only.ts'),
    },
  },
  test: {
    environment: 'node',
    setupFiles: ['test/support/setup.ts'],
    testTimeout: 15_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one worker on CI's two, where a file's import time left
    // the second core idle. Two there halve the suite's wall time (docs/performance.md, CI).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      // A worker runs file after file in one process: Node's own modules and the dependencies (LangChain, drizzle,
      // next) load once per worker instead of once per file. The app's own modules are loaded afresh for every file
      // (test/support/setup.ts resets them and the process-wide state they keep).
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false } },
      // Files that mock modules, install module hooks, change the environment or spawn processes keep a process each.
      ...(isolated.length ? [{ extends: true, test: { name: 'isolated', include: isolated } }] : []),
    ],
  },
});

