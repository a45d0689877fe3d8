#!/usr/bin/env node
// npm run demo — build (when the sources changed since the last build), apply migrations, seed the demo account
// with three example agents, and start the production server on PORT (default 3000).
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-freshness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const port = Number(process.env.PORT || 3000);
const dataDir = path.resolve(root, process.env.DATA_DIR || 'data');
const distDir = process.env.NEXT_DIST_DIR || '.next';
const env = { ...process.env, DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: '1' };

function runOrExit(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
  return result;
}

/** 14 letters and digits (~81 bits): easy to copy, and never starts with a dash that a CLI would read as a flag. */
function generatePassword() {
  const alphabet = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  return Array.from(crypto.randomBytes(14), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** The demo password: DEMO_PASSWORD, else the one saved by an earlier run, else a new one (saved for next time). */
function demoCredentials() {
  const file = path.join(dataDir, 'demo-credentials.json');
  const email = 'demo@ensemble.local';
  let saved = null;
  try {
    saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // first run
  }
  const password = process.env.DEMO_PASSWORD || saved?.password || generatePassword();
  if (saved?.password !== password || saved?.email !== email) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ email, password }, null, 2)}\n`, { mode: 0o600 });
  }
  return { email, password };
}

async function waitUntilHealthy(child) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/**
 * Whether the port can be listened on, as `next start` listens (every address). Checked first: with the port taken,
 * the health check below would be answered by whatever holds it, and the demo would print this account's password
 * beside another server's address.
 */
function portProblem() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err) => {
      if (err.code === 'EADDRINUSE') resolve(`Port ${port} is in use by another program.`);
      else if (err.code === 'EACCES') resolve(`Port ${port} needs privileges this user lacks.`);
      else reject(err);
    });
    probe.listen(port, () => probe.close(() => resolve(null)));
  });
}

const problem = await portProblem();
if (problem) {
  console.error(`${problem} Start the demo on a free port, e.g. PORT=${port === 3000 ? 3001 : port + 1} npm run demo`);
  process.exit(1);
}

if (process.env.DEMO_REBUILD !== '1' && buildIsCurrent(root, distDir)) {
  console.log(`Using the existing build in ${distDir} (DEMO_REBUILD=1 forces a new one).`);
} else {
  console.log('Building Ensemble (next build)…');
  runOrExit(bin('next'), ['build']);
}

const { email, password } = demoCredentials();
console.log(`Applying migrations and seeding the demo account in ${dataDir}…`);
runOrExit(bin('tsx'), ['--conditions=react-server', 'scripts/seed-demo.ts'], {
  env: { ...env, DEMO_EMAIL: email, DEMO_PASSWORD: password },
});

const server = spawn(bin('next'), ['start', '--port', String(port)], { cwd: root, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => server.kill(signal));
}
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

if (await waitUntilHealthy(server)) {
  console.log(`\nEnsemble is running at http://localhost:${port} — sign in as ${email} / ${password}\n`);
}
