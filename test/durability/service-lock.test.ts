// test:pg skip: the data directory's service lock is SQLite's; on Postgres several processes share a database (test-pg/cluster*.test.ts)
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireServiceLock, holdsServiceLock, releaseServiceLock, serviceLockPath } from '@/server/db/service-lock';

const root = path.resolve(__dirname, '../..');
const fixture = path.join(__dirname, 'fixtures/server-process.ts');
const children = new Set<ChildProcess>();

type Started = { child: ChildProcess; output: () => string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> };

/** Start a server-like child process (the real start-up code) on a data directory. */
function startServer(dataDir: string): Started {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', fixture], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => output, exited };
}

/** Resolve when the child printed "ready"; reject if it exits first or takes too long. */
function ready(server: Started, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms:\n${server.output()}`)), timeoutMs);
    const check = () => {
      if (server.output().includes('ready\n')) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.child.stdout!.on('data', check);
    check();
    void server.exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${server.output()}`));
    });
  });
}

function freshDataDir(label: string): string {
  return fs.mkdtempSync(path.join(process.env.DATA_DIR!, `${label}-`));
}

afterEach(async () => {
  for (const child of children) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }
});

describe('one server per data directory', () => {
  it('refuses a second server, naming the lock, and exits non-zero; a SIGKILL releases the lock', async () => {
    const dataDir = freshDataDir('lock');
    const first = startServer(dataDir);
    await ready(first);

    const second = startServer(dataDir);
    const refused = await second.exited;
    expect(refused.code).toBe(1);
    const lockFile = path.join(dataDir, 'server.lock.db');
    expect(second.output()).toContain(`could not take the service lock ${lockFile}`);
    expect(second.output()).not.toContain('ready');

    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    const third = startServer(dataDir);
    await ready(third);
    third.child.kill('SIGKILL');
    await third.exited;
  }, 150_000);

  it('releases the lock on SIGTERM after a graceful shutdown (exit code 143)', async () => {
    const dataDir = freshDataDir('term');
    const first = startServer(dataDir);
    await ready(first);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 143, signal: null });

    const next = startServer(dataDir);
    await ready(next);
    next.child.kill('SIGKILL');
    await next.exited;
  }, 150_000);

  it('in one process: taking the lock twice is a no-op, and it can be taken again after release', async () => {
    expect(acquireServiceLock()).toBe(serviceLockPath());
    expect(acquireServiceLock()).toBe(serviceLockPath());
    expect(holdsServiceLock()).toBe(true);
    releaseServiceLock();
    expect(holdsServiceLock()).toBe(false);
    expect(acquireServiceLock()).toBe(serviceLockPath());
    releaseServiceLock();
  });
});
