/**
 * The built app for the provider suites and the bench: one `next start` of the e2e build (.next-e2e, built when
 * missing or older than the sources; E2E_SKIP_BUILD=1 reuses any build) on a throw-away data directory, with an
 * account and an API token made through the user CLI (no UI).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOwner, ensureBuild, freePort, root, ServerProcess, waitForHealth } from '../scripts/crash/server';

export type App = { url: string; token: string; pid: number; env: NodeJS.ProcessEnv; scratch: string; logFile: string; output(): string; stop(): Promise<void> };

export async function startApp(extraEnv: Record<string, string>): Promise<App> {
  const distDir = process.env.NEXT_DIST_DIR || '.next-e2e';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-providers-'));
  if (process.env.E2E_SKIP_BUILD === '1' && fs.existsSync(path.join(root, distDir, 'BUILD_ID'))) console.log(`Reusing the build in ${distDir} (E2E_SKIP_BUILD=1).`);
  else ensureBuild(distDir, scratch);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_DIST_DIR: distDir,
    DATA_DIR: path.join(scratch, 'data'),
    PORT: String(port),
    AUTH_SECRET: crypto.randomBytes(32).toString('base64url'),
    SCRYPT_LOG_N: '10',
    NODE_ENV: 'production',
    // The suites run every case at once on one account.
    RUNS_IN_FLIGHT_PER_ACCOUNT: '500',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  // Vitest's own variables would make the app think it runs under a test.
  for (const name of Object.keys(env)) if (name.startsWith('VITEST') || name === 'TEST') delete env[name];
  const owner = createOwner(env, 'providers@stub.test', 'providers-password-1');
  const logFile = path.join(scratch, 'server.log');
  const server = new ServerProcess(port, env, logFile);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, server);
  } catch (error) {
    await server.kill('SIGKILL');
    throw error;
  }
  return {
    url,
    token: owner.token,
    pid: server.child.pid!,
    env,
    scratch,
    logFile,
    output: () => server.output,
    async stop() {
      await server.kill('SIGTERM');
      if (process.env.PROVIDERS_KEEP_DATA === '1') console.log(`Kept ${scratch}`);
      else fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
