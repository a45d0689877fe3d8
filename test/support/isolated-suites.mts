import fs from 'node:fs';
import path from 'node:path';

/**
 * Test files that keep a process of their own (Vitest's per-file isolation): what they do would outlive them in a
 * shared worker — module mocks (vi.mock, directly or through a support file), Node module hooks (next-auth's), child
 * processes, Next's testing helpers (`next/experimental/testing/server` loads Next's server environment, which wraps
 * every console method in its request storage: in a worker without Next's runtime that storage is a stub, and every
 * later file's console call there throws "AsyncLocalStorage accessed in runtime where it is not available"), and what
 * a file marks with a line `// test: own process: <why>` (it depends on a dependency's state as published, which
 * loading the app changes). Every other file shares its worker (vitest.config.mts, vitest.pg.config.mts;
 * test/support/setup.ts gives each file fresh app modules, no app state, the environment as it was, real timers and
 * no stubbed globals; ADR 037). A file that assigns or stubs process.env, stubs a global or fakes the clock shares
 * too: setup.ts undoes all of that after it, the app's modules read the environment afresh, and the dependencies read
 * provider keys and URLs when a client is made, not when they load.
 */
const NEEDS_ISOLATION = /vi\.(mock|doMock)\b|action-session|support\/next-auth|next\/experimental\/testing|child_process|spawn\(|^\/\/ test: own process: /m;

/**
 * Two kinds of those share a worker with their own kind, in a project of its own: what they leave behind is the same
 * for every file of the kind, and nothing else runs there. Files that call server actions through
 * support/action-session.ts (its two module mocks, the same for all of them, read the signed-in headers from one
 * process-wide holder), and files that only load next-auth through its module hook (support/next-auth.ts registers it
 * once per process). Anything more (a mock of its own, a child process, Next's testing helpers) keeps a process.
 */
const ACTION_SESSION = /from '\.\.\/support\/action-session'/;
const NEXT_AUTH_HOOK = /import '\.\.\/auth\/support\/next-auth'|import '\.\/support\/next-auth'/;
const BEYOND_THE_KIND = /vi\.(mock|doMock)\b|next\/experimental\/testing|child_process|spawn\(|^\/\/ test: own process: /m;

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
  const kinds = { shared: [] as string[], actions: [] as string[], nextAuth: [] as string[], isolated: [] as string[] };
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    if (!NEEDS_ISOLATION.test(text)) kinds.shared.push(file);
    else if (BEYOND_THE_KIND.test(text)) kinds.isolated.push(file);
    else if (ACTION_SESSION.test(text)) kinds.actions.push(file);
    else if (NEXT_AUTH_HOOK.test(text)) kinds.nextAuth.push(file);
    else kinds.isolated.push(file);
  }
  const project = (name: string, include: string[], isolate: boolean) =>
    include.length ? [{ extends: true as const, test: { name, include, ...(isolate ? {} : { isolate: false }) } }] : [];
  return [
    ...project('shared', kinds.shared, false),
    ...project('shared-actions', kinds.actions, false),
    ...project('shared-next-auth', kinds.nextAuth, false),
    ...project('isolated', kinds.isolated, true),
  ];
}
