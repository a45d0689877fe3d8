import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** `node scripts/demo.mjs` with this port and data directory: its exit code and what it printed. */
function runDemo(port: number, dataDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a demo that went on to build is stopped with its `next build`, not left orphaned.
    const child = spawn(process.execPath, ['scripts/demo.mjs'], { cwd: root, detached: true, env: { ...process.env, PORT: String(port), DATA_DIR: dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A demo that got past the port check would build and serve: far longer than this.
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/*
 * A new user whose port 3000 is taken by another server: the demo's health check was answered by that server, so it
 * printed "Ensemble is running at … sign in as demo@… / <password>" for an address where that account does not exist,
 * then its own server died on EADDRINUSE. It must stop first, saying which port and how to pick another.
 */
describe('npm run demo on a port another program holds', () => {
  it('stops before building or seeding, names the port and PORT=, and prints no address or password', async () => {
    // An HTTP server that answers the health check's path with 200, as another app (or another Ensemble) would.
    const other = http.createServer((_req, res) => res.end('{"ok":true}'));
    await new Promise<void>((resolve) => other.listen(0, resolve));
    cleanups.push(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const port = (other.address() as AddressInfo).port;
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'demo-port-')), 'data');
    cleanups.push(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

    const result = await runDemo(port, dataDir);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Port ${port} is in use by another program.`);
    expect(result.stderr).toContain(`PORT=${port + 1} npm run demo`);
    expect(result.stdout).not.toContain('sign in as');
    expect(result.stdout).not.toContain('Building');
    expect(fs.existsSync(dataDir)).toBe(false);
  });
});
