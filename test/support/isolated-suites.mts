import fs from 'node:fs';
import path from 'node:path';

/**
 * Test files that keep a process of their own (Vitest's per-file isolation): what they do would outlive them in a
 * shared worker — module mocks (vi.mock, directly or through a support file), Node module hooks (next-auth's),
 * vi.stubEnv/stubGlobal or fake timers, child processes, Next's testing helpers (`next/experimental/testing/server` loads
 * Next's server environment, which wraps every console method in its request storage: in a worker without Next's
 * runtime that storage is a stub, and every later file's console call there throws "AsyncLocalStorage accessed in
 * runtime where it is not available"), and what a file marks with a line `// test: own process: <why>` (it depends on
 * a dependency's state as published, which loading the app changes). Every other file shares its
 * worker (vitest.config.mts, vitest.pg.config.mts; test/support/setup.ts gives each file fresh app modules, no app
 * state and the environment as it was; ADR 037). A file that only assigns process.env shares too: the app's modules
 * read it afresh, and the dependencies read provider keys and URLs when a client is made, not when they load.
 */
const NEEDS_ISOLATION = /vi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\b|action-session|support\/next-auth|next\/experimental\/testing|child_process|spawn\(|^\/\/ test: own process: /m;

/** The test files (`*.test.ts`, relative to root) under `dir`. */
export function testFiles(root: string, dir: string): string[] {
  return (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join(dir, name))
    .sort();
}

/**
 * The two Vitest projects for these files: 'shared' (a worker runs file after file in one process, so Node's modules
 * and the dependencies load once per worker) and 'isolated' (a process per file), for the files that need it.
 */
export function workerProjects(root: string, files: readonly string[]) {
  const isolated = files.filter((file) => NEEDS_ISOLATION.test(fs.readFileSync(path.join(root, file), 'utf8')));
  const shared = files.filter((file) => !isolated.includes(file));
  return [
    { extends: true, test: { name: 'shared', include: shared, isolate: false } },
    ...(isolated.length ? [{ extends: true, test: { name: 'isolated', include: isolated } }] : []),
  ];
}
