import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authSecret, SharedSecretMissingError } from '@/server/auth/secret';

const root = path.resolve(__dirname, '../..');
// The real start-up (server/startup.ts) without Next, as the durability tests run it.
const fixture = path.join(root, 'test/durability/fixtures/server-process.ts');
// Refused before any connection is tried, so no database needs to answer here.
const UNREACHED_URL = 'postgres://postgres@127.0.0.1:9/never-connected';

const original = { DATABASE_URL: process.env.DATABASE_URL, AUTH_SECRET: process.env.AUTH_SECRET };
afterEach(() => {
  for (const [name, value] of Object.entries(original)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function startServer(env: NodeJS.ProcessEnv): { output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', fixture], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const bound = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (clearTimeout(bound), resolve(code))));
  return { output: () => output, exited };
}

describe('the session secret with DATABASE_URL (several processes)', () => {
  it('is never generated per process: authSecret() refuses and writes no secret file', () => {
    // Must not happen: each process on the shared database signing sessions with a secret of its own, so a
    // session cookie from one process is rejected by the next one the balancer picks.
    process.env.DATABASE_URL = UNREACHED_URL;
    delete process.env.AUTH_SECRET;
    expect(() => authSecret()).toThrow(SharedSecretMissingError);
    expect(fs.existsSync(path.join(process.env.DATA_DIR!, 'auth-secret'))).toBe(false);
  });

  it('stops start-up with a line saying what to set, before the data directory is made', async () => {
    const dataDir = path.join(process.env.DATA_DIR!, 'never-created');
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: UNREACHED_URL };
    delete env.AUTH_SECRET;
    const server = startServer(env);
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('[ensemble] not started: DATABASE_URL is set but AUTH_SECRET is not');
    expect(server.output()).toContain('Set AUTH_SECRET (at least 32 characters');
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('(control) with AUTH_SECRET set, start-up gets past the check (and fails only on the unreachable database)', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: path.join(process.env.DATA_DIR!, 'control'), DATABASE_URL: UNREACHED_URL };
    env.AUTH_SECRET = 'a-shared-secret-a-shared-secret-a-shared';
    const server = startServer(env);
    await server.exited;
    expect(server.output()).not.toContain('AUTH_SECRET is not');
    expect(server.output()).toMatch(/ECONNREFUSED|connect/);
  }, 60_000);

  it('(control) the embedded database still generates and keeps one', () => {
    delete process.env.DATABASE_URL;
    delete process.env.AUTH_SECRET;
    const secret = authSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fs.readFileSync(path.join(process.env.DATA_DIR!, 'auth-secret'), 'utf8')).toBe(secret);
  });
});
