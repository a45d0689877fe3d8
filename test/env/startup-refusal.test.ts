import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { until } from '../support/wait';

const root = path.resolve(__dirname, '../..');
// The real start-up (server/startup.ts) without Next, as the durability tests run it.
const fixture = path.join(root, 'test/durability/fixtures/server-process.ts');

type Started = { output: () => string; exited: Promise<number | null>; kill: () => Promise<unknown> };

function start(extraEnv: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', fixture], {
    cwd: root,
    env: { ...process.env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { output: () => output, exited, kill: () => (child.kill('SIGKILL'), exited) };
}

describe('start-up with invalid settings', () => {
  it('exits 1 naming every invalid variable and what it allows, before the data directory is touched', async () => {
    const dataDir = path.join(process.env.DATA_DIR!, 'never-created');
    const server = start({ DATA_DIR: dataDir, TRUST_PROXY: 'true', AGENT_LIMIT_PER_ACCOUNT: '-3' });
    const bound = setTimeout(() => void server.kill(), 45_000);
    const code = await server.exited;
    clearTimeout(bound);
    expect(code).toBe(1);
    const output = server.output();
    expect(output).toContain('[ensemble] TRUST_PROXY="true" is not allowed: a whole number of reverse-proxy hops, 0 to 99.');
    expect(output).toContain('[ensemble] AGENT_LIMIT_PER_ACCOUNT="-3" is not allowed: a whole number of agents, 1 or more.');
    expect(output).toContain('not started');
    expect(output).not.toContain('ready');
    expect(fs.existsSync(dataDir)).toBe(false);
  }, 60_000);

  it('(control) the same start-up with valid values gets ready', async () => {
    const server = start({ DATA_DIR: path.join(process.env.DATA_DIR!, 'valid'), TRUST_PROXY: '1', AGENT_LIMIT_PER_ACCOUNT: '3' });
    try {
      await until(() => server.output().includes('ready\n'), 45_000, 'the server to get ready');
      expect(server.output()).not.toContain('is not allowed');
    } finally {
      await server.kill();
    }
  }, 60_000);
});
