import { defineConfig } from 'vitest/config';
import os from 'node:os';
import { testFiles, workerProjects } from './test/support/isolated-suites.mts';
import { appResolve } from './test/support/vitest-resolve.mts';

const root = import.meta.dirname;

export default defineConfig({
  resolve: appResolve(root),
  test: {
    environment: 'node',
    setupFiles: ['test/support/setup.ts'],
    // The app's migrations run once, on a template every test file's database is copied from.
    globalSetup: ['test/support/sqlite-template.ts'],
    testTimeout: 15_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // A larger young generation: loading the app's modules into each worker allocates a lot that dies young, and
    // V8's default 16 MB semi-space promotes much of it to the old generation, where collecting costs more (about
    // 4 % of the suite's CPU; docs/performance.md, CI).
    execArgv: ['--max-semi-space-size=64'],
    // Vitest's default is one worker fewer than the cores: one worker on CI's two, where a file's import time left
    // the second core idle. Two there halve the suite's wall time (docs/performance.md, CI).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Files share a worker's process, with the app's modules and state fresh for each (ADR 037); files that mock
    // modules, install module hooks, change the environment or spawn processes keep a process each.
    projects: workerProjects(root, testFiles(root, 'test')),
  },
});
