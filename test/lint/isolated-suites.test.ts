import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testFiles, workerProjects } from '../support/isolated-suites.mjs';

/**
 * Which test files share a worker (ADR 037). What must not happen: a file that leaves process-wide state behind runs in
 * the shared worker, where every later file inherits it — as Next's testing helpers did: they load Next's server
 * environment, which wraps console methods in a request storage that is a stub outside Next's runtime, so every later
 * console call in that worker threw ("AsyncLocalStorage accessed in runtime where it is not available").
 */
const root = path.resolve(__dirname, '../..');
const projects = workerProjects(root, testFiles(root, 'test'));
const shared = projects.find((p) => p.test.name === 'shared')!.test.include;
const isolated = projects.find((p) => p.test.name === 'isolated')!.test.include;

describe('test files that need a process of their own', () => {
  it('every file using Next’s testing helpers runs isolated, none shared', () => {
    const users = ['test/http/csp-matcher.test.ts', 'test/http/page-body-guard.test.ts'];
    for (const file of users) expect(isolated).toContain(file);
    expect(shared.filter((f) => users.includes(f))).toEqual([]);
  });

  it('a file that only sets provider keys and URLs in process.env shares a worker (setup.ts restores the environment after it)', () => {
    for (const file of ['test/model-call/retries.test.ts', 'test/agents/providers.test.ts']) expect(shared).toContain(file);
  });

  it('loading Next’s testing helpers does wrap the console (why they must not share a worker)', () => {
    const probe = `const before = console.log; require('next/experimental/testing/server'); process.stdout.write(String(console.log !== before));`;
    expect(execFileSync(process.execPath, ['-e', probe], { cwd: root, encoding: 'utf8' })).toBe('true');
  });
});
