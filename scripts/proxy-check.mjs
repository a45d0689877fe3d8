#!/usr/bin/env node
// node scripts/proxy-check.mjs [--processes 3] [--live N] — the self-hosting setup of compose.yaml without Docker:
// deploy/Caddyfile, unchanged, run by a local `caddy` in front of `--processes` upstream slots, `--live` of them
// (default: all) running `next start` on one throw-away Postgres database. It checks, through the proxy only:
//   1. requests succeed while the slots without a process are down (the proxy routes around them);
//   2. sign-up in Chromium (the real form, a server action) and sign-in over HTTP (Auth.js credentials); a body
//      at the app's limit passes the proxy, one byte more gets the app's own 413;
//   3. a push stream (text/event-stream) delivers an event caused after it opened, while the request is still open;
//   4. open streams are spread over the live processes (Caddy's admin API counts each upstream's open requests);
//   5. after SIGKILL of a process, requests still succeed with the same session cookie: with several live processes
//      the others carry on; with one (--live 1), a process started in the killed one's slot must take over.
// PROXY_CHECK_CADDYFILE runs another config instead (e.g. a changed copy, to see a check fail).
// Needs a build (NEXT_DIST_DIR, default .next: `npx next build`), `caddy` on PATH (Debian: apt-get install caddy),
// Chromium (CHROMIUM_PATH or /usr/bin/chromium) and a Postgres: PROXY_CHECK_PG (default
// postgres://postgres@127.0.0.1:5432/test) is used to create and drop a database of its own.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { createParser } from 'eventsource-parser';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { processes: { type: 'string', default: '3' }, live: { type: 'string' } } });
const SLOTS = Number(args.processes);
const LIVE = Number(args.live ?? args.processes);
if (!Number.isInteger(SLOTS) || SLOTS < 1 || !Number.isInteger(LIVE) || LIVE < 1 || LIVE > SLOTS) {
  console.error('usage: node scripts/proxy-check.mjs [--processes N ≥ 1] [--live 1…N]');
  process.exit(2);
}
const DIST = process.env.NEXT_DIST_DIR || '.next';
const ADMIN_PG = process.env.PROXY_CHECK_PG || 'postgres://postgres@127.0.0.1:5432/test';
const CADDY = process.env.PROXY_CHECK_CADDY || 'caddy';
/** Another config to try (a changed copy): deploy/Caddyfile unless set. */
const CADDYFILE = path.resolve(root, process.env.PROXY_CHECK_CADDYFILE || 'deploy/Caddyfile');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Bounds of every wait below: a start, a health check round, one push event. */
const START_MS = 90_000;
const EVENT_MS = 10_000;
/** lib/limits.ts requestBodyBytes: the largest JSON body an /api route takes. */
const BODY_LIMIT = 64 * 1024;

if (!fs.existsSync(path.join(root, DIST, 'BUILD_ID'))) {
  console.error(`No build in ${DIST}: run \`NEXT_DIST_DIR=${DIST} npx next build\` first.`);
  process.exit(2);
}

const poll = async (what, ms, probe) => {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found) return found;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
};
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = net.createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
let passed = 0;
const ok = (text) => {
  passed++;
  console.log(`ok ${passed} - ${text}`);
};
const expect = (cond, text) => {
  if (!cond) throw new Error(text);
};

// ── the throw-away database, the ports, the processes ──
const dbName = `ensemble_proxy_check_${process.pid}_${crypto.randomBytes(3).toString('hex')}`;
const admin = new pg.Client({ connectionString: ADMIN_PG });
await admin.connect().catch((error) => {
  console.error(`No Postgres at ${ADMIN_PG} (PROXY_CHECK_PG): ${error.message}`);
  process.exit(2);
});
await admin.query(`create database "${dbName}"`);
const dbUrl = new URL(ADMIN_PG);
dbUrl.pathname = `/${dbName}`;
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-proxy-check-'));
const children = new Set();

/** A child whose output is kept (the last lines explain a failed start) and whose exit can be awaited. */
function start(name, command, argv, env) {
  const child = spawn(command, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const keep = (chunk) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 40));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.tail = () => `${name}:\n  ${lines.join('\n  ')}`;
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

const proxyPort = await freePort();
const adminPort = await freePort();
const slots = [];
for (let i = 0; i < SLOTS; i++) slots.push({ name: `app${i + 1}`, port: await freePort(), child: null });
const BASE = `http://127.0.0.1:${proxyPort}`;
const ORIGIN = BASE;
const authSecret = crypto.randomBytes(32).toString('base64url');

const startApp = (slot) => {
  const dataDir = path.join(work, slot.name);
  fs.mkdirSync(dataDir, { recursive: true });
  slot.child = start(slot.name, path.join(root, 'node_modules', '.bin', 'next'), ['start', '--port', String(slot.port), '--hostname', '127.0.0.1'], {
    DATABASE_URL: dbUrl.href,
    DATA_DIR: dataDir,
    AUTH_SECRET: authSecret,
    TRUST_PROXY: '1',
    ALLOW_SIGNUP: 'true',
    NEXT_DIST_DIR: DIST,
    NODE_ENV: 'production',
    SCRYPT_LOG_N: '10',
  });
};
/** Healthy on its own port, or a failure carrying the process's last lines when it exits first. */
const appHealthy = (slot) =>
  Promise.race([
    poll(`${slot.name} /api/health`, START_MS, async () => (await fetch(`http://127.0.0.1:${slot.port}/api/health`)).ok),
    slot.child.exited.then(({ code, signal }) => {
      throw new Error(`${slot.name} exited (${signal ?? code}) instead of starting.\n${slot.child.tail()}`);
    }),
  ]);

async function stopAll() {
  for (const child of children) child.kill('SIGTERM');
  const gone = Promise.all([...children].map((c) => c.exited));
  const late = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 10_000);
  await gone;
  clearTimeout(late);
}
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

let browser;
let failure;
try {
  const caddy = start('caddy', CADDY, ['run', '--adapter', 'caddyfile', '--config', CADDYFILE], {
    ENSEMBLE_ADDRESS: BASE,
    ENSEMBLE_UPSTREAMS: slots.map((s) => `127.0.0.1:${s.port}`).join(' '),
    CADDY_ADMIN: `127.0.0.1:${adminPort}`,
    XDG_CONFIG_HOME: path.join(work, 'caddy-config'),
    XDG_DATA_HOME: path.join(work, 'caddy-data'),
  });
  const upstreams = async () => (await fetch(`http://127.0.0.1:${adminPort}/reverse_proxy/upstreams`)).json();
  await Promise.race([
    poll('caddy admin API', START_MS, async () => Array.isArray(await upstreams())),
    caddy.exited.then(() => {
      throw new Error(`caddy exited.\n${caddy.tail()}`);
    }),
  ]);

  // The first process migrates the fresh database; the others start after it.
  startApp(slots[0]);
  await appHealthy(slots[0]);
  for (const slot of slots.slice(1, LIVE)) startApp(slot);
  await Promise.all(slots.slice(1, LIVE).map(appHealthy));
  const live = () => slots.filter((s) => s.child && s.child.exitCode === null && s.child.signalCode === null);
  console.log(`# proxy ${BASE}, ${SLOTS} upstream slots, live: ${live().map((s) => `${s.name} :${s.port}`).join(', ')}`);

  // 1. Routing around the slots that have no process.
  const healthy = [];
  for (let i = 0; i < 3 * SLOTS * 4; i++) healthy.push((await fetch(`${BASE}/api/health`)).status);
  expect(healthy.every((s) => s === 200), `health through the proxy: ${healthy.join(' ')}`);
  ok(`${healthy.length} of ${healthy.length} requests through the proxy answered 200 with ${SLOTS - LIVE} of ${SLOTS} upstreams down`);

  // 2. Sign-up in the browser (the real form posts a server action through the proxy), sign-in over HTTP.
  const email = `proxy-${crypto.randomUUID().slice(0, 8)}@check.test`;
  const password = `pw-${crypto.randomUUID()}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const page = await browser.newPage();
  await page.goto(`${BASE}/sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Name').fill('Proxy Check');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/agents$/, { timeout: EVENT_MS });
  expect((await page.getByTestId('user-email').textContent()) === email, 'the signed-up page does not show the account');
  ok('signed up through the proxy in Chromium (server action, then the signed-in agents page)');

  const csrf = await fetch(`${BASE}/api/auth/csrf`);
  const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const { csrfToken } = await csrf.json();
  const signIn = await fetch(`${BASE}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${BASE}/teams` }),
  });
  const cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('authjs.session-token='));
  expect(cookie, `sign-in through the proxy gave no session cookie (${signIn.status})`);
  const call = async (method, url, body) => {
    const res = await fetch(`${BASE}${url}`, {
      method,
      headers: { cookie, origin: ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  expect((await call('GET', '/api/v1/me')).user?.email === email, 'GET /api/v1/me names another account');
  ok('signed in through the proxy over HTTP; the session cookie reads /api/v1/me');

  // The proxy passes a body at the app's limit, and one byte past it gets the app's own 413.
  const bodyOf = (bytes) => {
    const shell = JSON.stringify({ name: 'Padded', description: '' });
    return shell.replace('"description":""', `"description":"${'a'.repeat(bytes - shell.length)}"`);
  };
  const post = (body) => fetch(`${BASE}/api/v1/agents`, { method: 'POST', headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' }, body });
  const atLimit = await post(bodyOf(BODY_LIMIT));
  const pastLimit = await post(bodyOf(BODY_LIMIT + 1));
  const pastCode = (await pastLimit.json()).error?.code;
  expect(atLimit.status === 422, `a body of ${BODY_LIMIT} bytes: ${atLimit.status} ${await atLimit.text()} (expected the app's 422 for the long description)`);
  expect(pastLimit.status === 413 && pastCode === 'payload_too_large', `a body of ${BODY_LIMIT + 1} bytes: ${pastLimit.status} ${pastCode}`);
  ok(`a ${BODY_LIMIT}-byte body reaches the app (422 on its content); ${BODY_LIMIT + 1} bytes get the app's 413 payload_too_large`);

  // 3. A push event caused after the stream opened arrives while its request is still open.
  const agentIds = [];
  for (const name of ['Writer', 'Reviewer']) agentIds.push((await call('POST', '/api/v1/agents', { name })).id);
  const team = await call('POST', '/api/v1/teams', { requestId: crypto.randomUUID(), name: 'Proxy check', goal: 'Check the proxy', agentIds });
  const stream = openStream(`/api/v1/teams/${team.id}/events`, cookie);
  const first = await stream.next('team', EVENT_MS);
  const sentAt = Date.now();
  await call('POST', `/api/v1/teams/${team.id}/requests`, { memberIds: [team.members[0].id], text: '/reply through the proxy', draftKey: crypto.randomUUID() });
  const later = await stream.next('team', EVENT_MS);
  expect(Number(later.id) > Number(first.id), `revision did not move: ${first.id} → ${later.id}`);
  expect(!stream.ended(), 'the stream ended; the event must arrive while it is open');
  ok(`push stream through the proxy: revision ${first.id} → ${later.id} arrived ${Date.now() - sentAt} ms after the request, stream still open`);

  // 4. Open streams are spread: every live upstream holds at least one, the down ones none.
  const streams = [stream];
  for (let i = 1; i < 2 * LIVE; i++) streams.push(openStream('/api/v1/teams/events', cookie));
  await Promise.all(streams.slice(1).map((s) => s.next('teams', EVENT_MS)));
  const counts = Object.fromEntries((await upstreams()).map((u) => [u.address, u.num_requests]));
  const byName = slots.map((s) => `${s.name}=${counts[`127.0.0.1:${s.port}`]}`).join(' ');
  for (const slot of slots) {
    const n = counts[`127.0.0.1:${slot.port}`];
    expect(live().includes(slot) ? n >= 1 : n === 0, `open streams per upstream: ${byName}`);
  }
  ok(`${streams.length} open streams spread over the live upstreams (${byName})`);
  streams.forEach((s) => s.close());

  // 5. SIGKILL a process: requests with the same session still succeed.
  const victim = live().at(-1);
  victim.child.kill('SIGKILL');
  await victim.child.exited;
  if (live().length === 0) {
    // One process per database for now: a standby in the same slot takes over once the dead one's lock is gone.
    startApp(victim);
    await appHealthy(victim);
  }
  const tookOverAt = Date.now();
  await poll('a signed-in request through the proxy after the kill', START_MS, async () => (await fetch(`${BASE}/api/v1/teams`, { headers: { cookie } })).ok);
  const statuses = [];
  for (let i = 0; i < 30; i++) statuses.push((await fetch(`${BASE}/api/v1/teams`, { headers: { cookie } })).status);
  expect(statuses.every((s) => s === 200), `after the kill: ${statuses.join(' ')}`);
  ok(
    `${victim.name} killed (SIGKILL); ${LIVE > 1 ? 'the others answered' : 'a standby took its slot and answered'} 30 of 30 signed-in requests ` +
      `(first success ${Date.now() - tookOverAt} ms after ${LIVE > 1 ? 'the kill' : 'the standby was healthy'})`,
  );
} catch (error) {
  failure = error;
} finally {
  await browser?.close();
  await stopAll();
  await admin.query(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
  fs.rmSync(work, { recursive: true, force: true });
}
if (failure) {
  console.error(`not ok - ${failure instanceof Error ? failure.message : failure}`);
  console.log(`${passed} passed, 1 failed`);
  process.exit(1);
}
console.log(`${passed} passed, 0 failed`);

/** A text/event-stream read with fetch; `next(event)` waits (bounded) for the next message of that event type. */
function openStream(url, cookie) {
  const controller = new AbortController();
  const messages = [];
  let wake = () => {};
  let done = false;
  const parser = createParser({
    onEvent: (m) => {
      messages.push(m);
      wake();
    },
  });
  const reading = (async () => {
    const res = await fetch(`${BASE}${url}`, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
    if (!res.ok || !res.headers.get('content-type')?.startsWith('text/event-stream')) throw new Error(`${url}: ${res.status} ${res.headers.get('content-type')}`);
    const decoder = new TextDecoder();
    for await (const chunk of res.body) parser.feed(decoder.decode(chunk, { stream: true }));
  })()
    .catch((error) => {
      if (!controller.signal.aborted) messages.push({ error });
    })
    .finally(() => {
      done = true;
      wake();
    });
  void reading;
  return {
    ended: () => done,
    close: () => controller.abort(),
    async next(event, ms) {
      const until = Date.now() + ms;
      for (;;) {
        const i = messages.findIndex((m) => m.error || m.event === event);
        if (i >= 0) {
          const [m] = messages.splice(0, i + 1).slice(-1);
          if (m.error) throw m.error;
          return m;
        }
        if (done) throw new Error(`${url}: the stream ended before an '${event}' event`);
        const left = until - Date.now();
        if (left <= 0) throw new Error(`${url}: no '${event}' event within ${ms} ms (a buffering proxy holds them back)`);
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    },
  };
}
