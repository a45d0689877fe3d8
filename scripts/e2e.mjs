#!/usr/bin/env node
// npm run test:e2e [-- <playwright args>]
// Finds a Chromium (installing Debian's when it can), builds the app into its own dist dir, and runs Playwright
// against `next start` with a throw-away data directory. E2E_SKIP_BUILD=1 reuses the previous e2e build.
// `--build-only` (npm run test:e2e:build) only builds: npm test builds beside lint and typecheck, then reuses it.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

async function playwrightChromium() {
  try {
    const { chromium } = await import('@playwright/test');
    const file = chromium.executablePath();
    return file && fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
}

async function findChromium() {
  if (process.env.CHROMIUM_PATH) {
    if (fs.existsSync(process.env.CHROMIUM_PATH)) return process.env.CHROMIUM_PATH;
    console.error(`CHROMIUM_PATH=${process.env.CHROMIUM_PATH} does not exist.`);
    process.exit(1);
  }
  // Debian's headless shell first: the browser's engine without its interface, less CPU per page (e2e/env.ts).
  for (const file of ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium', '/usr/bin/chromium-browser']) if (fs.existsSync(file)) return file;
  return playwrightChromium();
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = () => fs.existsSync('/etc/debian_version') && fs.existsSync('/usr/bin/apt-get');

const buildOnly = process.argv[2] === '--build-only';
let chromium = buildOnly ? null : await findChromium();
if (!buildOnly && !chromium && isRoot() && isDebian()) {
  console.log('No Chromium found: installing Debian chromium-headless-shell (apt-get install -y chromium-headless-shell)…');
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  if (run('apt-get', ['update'], env) !== 0 || run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium-headless-shell'], env) !== 0) {
    console.error('Installing chromium with apt-get failed.');
    process.exit(1);
  }
  chromium = await findChromium();
}
if (!buildOnly && !chromium) {
  console.error(
    'No Chromium found: install one (Debian: `sudo apt-get install chromium-headless-shell` or `chromium`) or set CHROMIUM_PATH=/path/to/chromium, or run `npx playwright install chromium`.',
  );
  process.exit(1);
}

const distDir = process.env.NEXT_DIST_DIR || '.next-e2e';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-e2e-'));
const env = {
  ...(chromium ? { CHROMIUM_PATH: chromium } : {}),
  NEXT_DIST_DIR: distDir,
  E2E_DATA_DIR: dataDir,
  E2E_AUTH_SECRET: process.env.E2E_AUTH_SECRET || crypto.randomBytes(32).toString('base64url'),
  NEXT_TELEMETRY_DISABLED: '1',
};

let status = 0;
try {
  const built = fs.existsSync(path.join(root, distDir, 'BUILD_ID'));
  if (process.env.E2E_SKIP_BUILD === '1' && built) {
    console.log(`Reusing the build in ${distDir} (E2E_SKIP_BUILD=1).`);
  } else {
    const started = Date.now();
    // The build gets its own data directory too, so nothing it evaluates touches ./data.
    // Types are npm run typecheck's job (npm test runs it first); E2E_TYPECHECK=1 makes the build check them too.
    const typecheck = process.env.E2E_TYPECHECK === '1' ? {} : { NEXT_SKIP_TYPECHECK: '1' };
    status = run(bin('next'), ['build'], { ...env, ...typecheck, DATA_DIR: path.join(dataDir, 'build') });
    if (status !== 0) throw new Error('next build failed');
    console.log(`Built into ${distDir} in ${Math.round((Date.now() - started) / 1000)} s.`);
  }
  if (!buildOnly) status = run(bin('playwright'), ['test', ...process.argv.slice(2)], env);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  status ||= 1;
} finally {
  if (process.env.E2E_KEEP_DATA === '1') console.log(`Kept the e2e data directory: ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(status);
