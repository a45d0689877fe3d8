import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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
const project = (name: string) => projects.find((p) => p.test.name === name)!.test.include;
const shared = project('shared');
const isolated = project('isolated');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

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

  it('a file with a module mock of its own never shares a worker, whatever else it imports', () => {
    const sharing = [...shared, ...project('shared-actions'), ...project('shared-next-auth')];
    expect(sharing.filter((file) => /vi\.(mock|doMock)\b/.test(read(file)))).toEqual([]);
    // It imports action-session (the actions' kind) and mocks a module too.
    expect(isolated).toContain('test/actions/every-action.test.ts');
  });
});

describe('test files that share a worker with their own kind', () => {
  it('every file calling server actions through action-session shares the actions’ worker, and only those', () => {
    const actions = project('shared-actions');
    expect(actions).toContain('test/actions/teams.test.ts');
    for (const file of actions) expect(read(file)).toMatch(/from '\.\.\/support\/action-session'/);
  });

  it('files that only load next-auth through its module hook share a worker of their own', () => {
    const nextAuth = project('shared-next-auth');
    expect(nextAuth).toContain('test/auth/session.test.ts');
    for (const file of nextAuth) expect(read(file)).not.toMatch(/action-session/);
    expect(shared.filter((file) => /support\/next-auth|action-session/.test(read(file)))).toEqual([]);
  });

  it('a file that stubs a variable or a global, or fakes the clock, shares the plain worker', () => {
    for (const file of ['test/env/settings.test.ts', 'test/runs-ui/queries.test.ts', 'test/ui/live-connection.test.ts']) expect(shared).toContain(file);
  });
});

describe('what a file leaves behind in a shared worker', () => {
  const config = 'test/lint/fixtures/shared-worker/vitest.config.mts';
  const vitest = path.join(root, 'node_modules', '.bin', 'vitest');
  /** Two files that each stub a global and a variable, fake the clock and replace process.env, one after the other in one process. */
  function runTwoFiles(env: Record<string, string>) {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-shared-worker-'));
    try {
      const run = spawnSync(vitest, ['run', '--config', config], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env, FIXTURE_OUT: out, NO_COLOR: '1', FORCE_COLOR: '0' } });
      const pids = fs.readFileSync(path.join(out, 'pids'), 'utf8').trim().split('\n');
      return { status: run.status, output: run.stdout + run.stderr, pids };
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }

  it('the next file finds no stubbed global or variable, the real clock, and process.env as vi.stubEnv needs it (setup.ts undoes them)', () => {
    const run = runTwoFiles({});
    expect(run.pids).toHaveLength(2);
    expect(new Set(run.pids).size).toBe(1);
    expect(run.status, run.output).toBe(0);
  });

  it('control: without setup.ts, the second file inherits them and fails', () => {
    const run = runTwoFiles({ FIXTURE_SETUP: 'none' });
    expect(new Set(run.pids).size).toBe(1);
    expect(run.status).toBe(1);
    // The second file's four checks, each on its own: what setup.ts undoes, one thing each.
    expect(run.output).toMatch(/Tests +4 failed \| 8 passed/);
  });
});
