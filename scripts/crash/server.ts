/**
 * The real server for the crash test: a production build (`next build` when missing or older than the sources),
 * started as `node_modules/.bin/next start` directly so the test owns its pid and can SIGKILL it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { buildIsCurrent, builtAt } from '../build-freshness.mjs';

export const root = path.resolve(__dirname, '..', '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

/** Build into distDir unless a current build is there (CRASH_SKIP_BUILD=1 reuses any existing build). */
export function ensureBuild(distDir: string, scratchDir: string): void {
  if (builtAt(root, distDir) !== null) {
    if (process.env.CRASH_SKIP_BUILD === '1' || buildIsCurrent(root, distDir)) {
      console.log(`Using the build in ${distDir}.`);
      return;
    }
    console.log(`The build in ${distDir} is older than the sources: rebuilding (CRASH_SKIP_BUILD=1 reuses it).`);
  } else {
    console.log(`No build in ${distDir}: running next build…`);
  }
  const started = Date.now();
  const result = spawnSync(bin('next'), ['build'], {
    cwd: root,
    stdio: 'inherit',
    // The build gets its own data directory, so nothing it evaluates touches the test's database. Types are
    // npm run typecheck's job (as in scripts/e2e.mjs); CRASH_TYPECHECK=1 makes the build check them too.
    env: {
      ...process.env,
      NEXT_DIST_DIR: distDir,
      DATA_DIR: path.join(scratchDir, 'build-data'),
      NEXT_TELEMETRY_DISABLED: '1',
      ...(process.env.CRASH_TYPECHECK === '1' ? {} : { NEXT_SKIP_TYPECHECK: '1' }),
    },
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status ?? result.signal})`);
  console.log(`Built into ${distDir} in ${Math.round((Date.now() - started) / 1000)} s.`);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Create an account with an API token through the CLI (it applies migrations itself). */
export function createOwner(env: NodeJS.ProcessEnv, email: string, password: string): { userId: string; token: string } {
  const result = spawnSync(bin('tsx'), ['--conditions=react-server', 'scripts/user.ts', 'create', '--email', email, '--password', password, '--token'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`npm run user failed: ${result.stderr || result.stdout}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as { userId: string; token: string };
}

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** One `next start` process: its pid is the server's pid (no npm or shell in between). */
export class ServerProcess {
  readonly child: ChildProcess;
  readonly startedAt = Date.now();
  readonly exited: Promise<Exit>;
  output = '';

  constructor(port: number, env: NodeJS.ProcessEnv, logFile: string) {
    this.child = spawn(bin('next'), ['start', '--port', String(port), '--hostname', '127.0.0.1'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = fs.createWriteStream(logFile, { flags: 'a' });
    log.write(`\n===== next start pid ${this.child.pid} at ${new Date(this.startedAt).toISOString()} =====\n`);
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      stream.on('data', (chunk: Buffer) => {
        this.output += chunk.toString();
        log.write(chunk);
      });
    }
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        log.end();
        resolve({ code, signal });
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async kill(signal: NodeJS.Signals): Promise<Exit> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }
}

/** Poll GET /api/health until it answers 200 (bounded); fails early if the process exits. */
export async function waitForHealth(baseUrl: string, server: ServerProcess, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!server.running) throw new Error(`the server exited before it was healthy:\n${server.output.slice(-2_000)}`);
    try {
      const res = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return Date.now();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server was not healthy within ${timeoutMs} ms:\n${server.output.slice(-2_000)}`);
}
