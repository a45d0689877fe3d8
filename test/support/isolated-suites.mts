import fs from 'node:fs';
import path from 'node:path';

/**
 * Test files that keep a process of their own (Vitest's per-file isolation): what they do would outlive them in a
 * shared worker — module mocks (vi.mock, directly or through a support file), Node module hooks (next-auth's), changes
 * to the environment or fake timers, child processes, and what a file marks with a line `// test: own process: <why>`
 * (it depends on a dependency's state as published, which loading the app changes). Every other file shares its worker (vitest.config.mts,
 * vitest.pg.config.mts; test/support/setup.ts gives each file fresh app modules and no app state).
 */
const NEEDS_ISOLATION = /vi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers)\b|action-session|support\/next-auth|child_process|spawn\(|process\.env\.[A-Z_]+ =|delete process\.env|^\/\/ test: own process: /m;

/** The test files (`*.test.ts`, relative to root) under `dir`. */
export function testFiles(root: string, dir: string): string[] {
  return (fs.readdirSync(path.join(root, dir), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join(dir, name))
    .sort();
}

/** Of these files, the ones that need a process of their own. */
export function needingIsolation(root: string, files: readonly string[]): string[] {
  return files.filter((file) => NEEDS_ISOLATION.test(fs.readFileSync(path.join(root, file), 'utf8')));
}
