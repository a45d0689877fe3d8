#!/usr/bin/env node
// npm run bench:push — the team workspace's push updates against the polling they replace, measured against a real
// `next start` and in Chromium. Prints figures (docs/performance.md "Push updates"); it is not a test and asserts
// nothing. BENCH_SKIP_BUILD=1 reuses the build in NEXT_DIST_DIR (default .next-bench); BENCH_RUNS (20), BENCH_IDLE
// (200) and BENCH_WINDOW_S (30) change the sizes.
//
//   1. Latency: run end (the job's completedAt, written in the run's finishing transaction) → the card in the open
//      workspace shows it (a MutationObserver in the page stamps the moment), over BENCH_RUNS runs.
//   2. Bytes: what the page receives per change (stream frames + the reads they cause), read from Chromium's network
//      log (encoded bytes, headers included), against the old poll's `activity?limit=200&details=1` with 25 jobs.
//   3. Idle cost: the server process's CPU over a window with BENCH_IDLE open, idle streams (10 accounts, as the
//      per-account cap is 20), against BENCH_IDLE pollers asking `activity?…&revision=R` every 2 s as the old page did.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const DIST = process.env.NEXT_DIST_DIR || '.next-bench';
const PORT = Number(process.env.BENCH_PORT || 3290);
const BASE = `http://127.0.0.1:${PORT}`;
const RUNS = Number(process.env.BENCH_RUNS || 20);
const IDLE = Number(process.env.BENCH_IDLE || 200);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S || 30);
const SEED_JOBS = 25;
const WORDS = 'the team member result draft review plan source budget launch note check cost figure table summary'.split(' ');
const prose = (chars) => {
  let out = '';
  while (out.length < chars) out += `${WORDS[crypto.randomInt(WORDS.length)]}${crypto.randomInt(1000)} `;
  return out.slice(0, chars);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const kb = (n) => `${(n / 1024).toFixed(2)} KB`;
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

if (process.env.BENCH_SKIP_BUILD !== '1') {
  console.log(`Building into ${DIST}…`);
  const built = spawnSync(bin('next'), ['build'], { cwd: root, stdio: 'inherit', env: { ...process.env, NEXT_DIST_DIR: DIST } });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-push-'));
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  NEXT_DIST_DIR: DIST,
  AUTH_SECRET: crypto.randomBytes(32).toString('base64url'),
  SCRYPT_LOG_N: '10',
  NODE_ENV: 'production',
  PORT: String(PORT),
};
const server = spawn(bin('next'), ['start', '--port', String(PORT), '--hostname', '127.0.0.1'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
// The user factory (e2e/support/user-factory.ts) starts once the server has migrated the fresh database.
let factory;
let browser;
const cleanup = () => {
  factory?.stdin.end();
  server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
};
// Whatever ends this process (an uncaught error included), the server it started goes with it.
process.on('exit', () => server.kill('SIGTERM'));

/** Sum of utime+stime (clock ticks) of the server process and its descendants. */
function serverCpuTicks() {
  const stats = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((pid) => {
      try {
        const raw = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(pid), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
      } catch {
        return null;
      }
    })
    .filter(Boolean);
  const tree = new Set([server.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of stats) {
      if (tree.has(s.pid) || !tree.has(s.ppid)) continue;
      tree.add(s.pid);
      grew = true;
    }
  }
  return stats.filter((s) => tree.has(s.pid)).reduce((sum, s) => sum + s.ticks, 0);
}
const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim() || 100);
async function cpuOver(seconds) {
  const t0 = serverCpuTicks();
  const w0 = performance.now();
  await sleep(seconds * 1000);
  const cpuS = (serverCpuTicks() - t0) / TICKS;
  return (cpuS / ((performance.now() - w0) / 1000)) * 100;
}

// ── accounts ──
const waiting = new Map();
let nextId = 1;
let factoryReady;
function startFactory() {
  factory = spawn(bin('tsx'), ['--conditions=react-server', 'e2e/support/user-factory.ts'], { cwd: root, env });
  factoryReady = new Promise((resolve) => {
    readline.createInterface({ input: factory.stdout }).on('line', (line) => {
      const m = JSON.parse(line);
      if (m.ready) return resolve();
      waiting.get(m.id)?.(m);
    });
  });
}
async function createAccount(label) {
  await factoryReady;
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@bench.test`;
  const password = `pw-${crypto.randomUUID()}`;
  const id = nextId++;
  const made = await new Promise((resolve) => {
    waiting.set(id, resolve);
    factory.stdin.write(`${JSON.stringify({ id, email, password })}\n`);
  });
  if (!made.token) throw new Error(`creating a user failed: ${made.error}`);
  return { email, password, token: made.token };
}
async function signIn({ email, password }) {
  const csrf = await fetch(`${BASE}/api/auth/csrf`);
  const jar = csrf.headers.getSetCookie().map((c) => c.split(';')[0]);
  const { csrfToken } = await csrf.json();
  const res = await fetch(`${BASE}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; ') },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: `${BASE}/teams` }),
  });
  const session = res.headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('authjs.session-token='));
  if (!session) throw new Error(`sign-in failed (${res.status})`);
  const [name, ...value] = session.split('=');
  return { name, value: value.join('='), domain: '127.0.0.1', path: '/' };
}
const api = (token) => async (method, url, body) => {
  const res = await fetch(`${BASE}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
};
async function makeTeam(call, name) {
  const agentIds = [];
  for (const agent of ['Writer', 'Reviewer']) agentIds.push((await call('POST', '/api/v1/agents', { name: agent, description: 'bench' })).id);
  return call('POST', '/api/v1/teams', { requestId: crypto.randomUUID(), name, goal: 'Benchmark push', agentIds });
}
const send = async (call, team, member, text) =>
  (await call('POST', `/api/v1/teams/${team.id}/requests`, { memberIds: [member], text, draftKey: crypto.randomUUID() })).jobs[0].id;
async function settled(call, team) {
  for (;;) {
    const t = await call('GET', `/api/v1/teams/${team.id}`);
    if (t.pendingJobs === 0) return;
    await sleep(100);
  }
}

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) break;
    } catch {}
    if (i > 600) throw new Error('the server did not start');
    await sleep(100);
  }
  startFactory();

  // ── 1 & 2: one workspace in Chromium ──
  const owner = await createAccount('bench');
  const call = api(owner.token);
  const team = await makeTeam(call, 'Bench crew');
  const [writer, reviewer] = team.members.map((m) => m.id);
  // Results of ~3,500 characters of varied words (compressing about as well as prose does), like real answers.
  for (let i = 0; i < SEED_JOBS; i++) await send(call, team, i % 2 ? writer : reviewer, `/reply Seed result ${i}: ${prose(3_500)}`);
  await settled(call, team);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const context = await browser.newContext();
  await context.addCookies([await signIn(owner)]);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const requests = new Map();
  cdp.on('Network.requestWillBeSent', (e) => requests.set(e.requestId, { url: e.request.url, bytes: 0, body: 0, done: false }));
  cdp.on('Network.dataReceived', (e) => {
    const r = requests.get(e.requestId);
    if (!r) return;
    r.body += e.dataLength;
    if (r.url.endsWith('/events')) r.bytes += e.encodedDataLength;
  });
  cdp.on('Network.responseReceived', (e) => {
    const r = requests.get(e.requestId);
    if (r && r.url.endsWith('/events')) r.bytes += e.response.encodedDataLength ?? 0;
  });
  cdp.on('Network.loadingFinished', (e) => {
    const r = requests.get(e.requestId);
    if (r && !r.url.endsWith('/events')) Object.assign(r, { bytes: e.encodedDataLength, done: true });
  });
  const snapshot = () => new Map([...requests].map(([id, r]) => [id, { ...r }]));
  const delta = (before) => {
    const out = { events: 0, since: 0, other: 0, sinceReads: 0, otherReads: [], sinceBody: 0, otherBody: 0 };
    for (const [id, r] of requests) {
      const prev = before.get(id)?.bytes ?? 0;
      const b = r.bytes - prev;
      const body = r.body - (before.get(id)?.body ?? 0);
      if (b <= 0) continue;
      if (r.url.endsWith('/events')) out.events += b;
      else if (r.url.includes('/activity?since=')) {
        out.since += b;
        out.sinceBody += body;
        out.sinceReads += 1;
      } else {
        out.other += b;
        out.otherBody += body;
        out.otherReads.push(new URL(r.url).pathname.replace(/[0-9a-f-]{36}/g, ':id'));
      }
    }
    return out;
  };

  await page.goto(`${BASE}/teams/${team.id}`);
  await page.getByRole('status').filter({ hasText: /^Live$/ }).waitFor({ timeout: 30_000 });
  await page.evaluate(() => {
    const w = window;
    w.__want = new Set();
    w.__seen = {};
    new MutationObserver(() => {
      if (!w.__want.size) return;
      const cards = [...document.querySelectorAll('article')];
      for (const marker of w.__want) {
        const card = cards.find((a) => a.textContent.includes(marker));
        // The result text only appears once the job is completed (the task line holds the marker too).
        if (card && card.textContent.includes(`Result ${marker}`)) {
          w.__seen[marker] = Date.now();
          w.__want.delete(marker);
        }
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  const latencies = [];
  const perRun = [];
  for (let i = 0; i < RUNS; i++) {
    const marker = `m${i}x${crypto.randomUUID().slice(0, 6)}`;
    await page.evaluate((m) => window.__want.add(m), marker);
    const before = snapshot();
    const jobId = await send(call, team, i % 2 ? writer : reviewer, `${marker}\n/reply Result ${marker}`);
    const deadline = Date.now() + 20_000;
    let seenAt;
    while (!(seenAt = await page.evaluate((m) => window.__seen[m], marker))) {
      if (Date.now() > deadline) throw new Error(`run ${i}: the card never showed its result`);
      await sleep(25);
    }
    const changes = await call('GET', `/api/v1/teams/${team.id}/activity?since=0`);
    const job = changes.changed.find((j) => j.id === jobId);
    latencies.push(seenAt - Date.parse(job.completedAt));
    await settled(call, team);
    await sleep(400); // trailing reads (team, state) the last change caused
    perRun.push(delta(before));
  }

  // The old poll's answer for the same 25+ jobs, fetched by the same page (encoded bytes, headers included).
  const before = snapshot();
  await page.evaluate((id) => fetch(`/api/v1/teams/${id}/activity?limit=200&details=1`).then((r) => r.text()), team.id);
  await sleep(200);
  const old = delta(before);
  const jobsNow = (await call('GET', `/api/v1/teams/${team.id}/activity?limit=1`)).totalJobs;

  const sum = (k) => perRun.reduce((s, r) => s + r[k], 0);
  const changesSeen = sum('sinceReads');
  console.log(`\n── Run end → card updated (${RUNS} runs, one open workspace, ${SEED_JOBS}+ jobs) ──`);
  console.log(`p50 ${pct(latencies, 50)} ms · p95 ${pct(latencies, 95)} ms · max ${Math.max(...latencies)} ms`);
  console.log(`\n── Bytes on the wire per change (encoded, headers included) ──`);
  console.log(`since-reads: ${changesSeen} for ${RUNS} requests (a request's changes — queued, running, completed — that land while a read is out fold into the next)`);
  console.log(
    `per read: stream ${kb(sum('events') / changesSeen)} + since-read ${kb(sum('since') / changesSeen)} = ${kb((sum('events') + sum('since')) / changesSeen)} (since body uncompressed: ${kb(sum('sinceBody') / changesSeen)})`,
  );
  const others = perRun.flatMap((r) => r.otherReads);
  const tally = new Map();
  for (const x of others) tally.set(x, (tally.get(x) ?? 0) + 1);
  const counts = [...tally].map(([k, n]) => `${n}× ${k}`);
  console.log(`plus refetches it invalidates: ${kb(sum('other') / changesSeen)} per read (${counts.join(', ')})`);
  console.log(
    `old poll: activity?limit=200&details=1 with ${jobsNow} jobs = ${kb(old.other)} per change (uncompressed ${kb(old.otherBody)}), re-read whole on every change`,
  );
  await browser.close();
  browser = undefined;

  // ── 3: idle cost on the server ──
  const accounts = [];
  for (let i = 0; i < Math.ceil(IDLE / 20); i++) {
    const a = await createAccount(`idle${i}`);
    const c = api(a.token);
    accounts.push({ ...a, team: await makeTeam(c, `Idle ${i}`) });
  }
  await sleep(2_000);
  const baseline = await cpuOver(WINDOW_S);
  const held = [];
  for (let i = 0; i < IDLE; i++) {
    const a = accounts[Math.floor(i / 20)];
    await new Promise((resolve, reject) => {
      const req = http.get(`${BASE}/api/v1/teams/${a.team.id}/events`, { headers: { authorization: `Bearer ${a.token}` } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
        res.once('data', () => resolve());
        res.resume();
      });
      req.on('error', reject);
      held.push(req);
    });
  }
  await sleep(2_000);
  const streaming = await cpuOver(WINDOW_S);
  for (const req of held) req.destroy();
  await sleep(2_000);

  // The old page: each poll asked with its last revision; an idle team answers { unchanged } but every ask still
  // authenticates, checks the owner and reads the team.
  let stop = false;
  let failed = 0;
  const answers = [];
  const poller = async (a, offset) => {
    await sleep(offset);
    const revision = (await api(a.token)('GET', `/api/v1/teams/${a.team.id}`)).revision;
    while (!stop) {
      const t0 = performance.now();
      try {
        const res = await fetch(`${BASE}/api/v1/teams/${a.team.id}/activity?limit=200&details=1&revision=${revision}`, {
          headers: { authorization: `Bearer ${a.token}` },
        });
        await res.text();
        if (res.ok) answers.push(performance.now() - t0);
        else failed += 1;
      } catch {
        // An overloaded server resets connections: that is part of what polling costs, so it is counted, not fatal.
        failed += 1;
      }
      await sleep(2_000);
    }
  };
  const pollers = Array.from({ length: IDLE }, (_, i) => poller(accounts[Math.floor(i / 20)], (i * 2_000) / IDLE));
  await sleep(3_000);
  answers.length = 0;
  failed = 0;
  const polling = await cpuOver(WINDOW_S);
  stop = true;
  await Promise.all(pollers);

  console.log(`\n── Idle cost on the server (${IDLE} open workspaces, ${WINDOW_S} s windows, % of one core) ──`);
  console.log(`nothing open: ${baseline.toFixed(2)} % · ${IDLE} idle streams: ${streaming.toFixed(2)} % (+${(streaming - baseline).toFixed(2)} %)`);
  console.log(
    `${IDLE} pollers every 2 s (old page, idle teams): ${polling.toFixed(2)} % (+${(polling - baseline).toFixed(2)} %); answer p50 ${pct(answers, 50).toFixed(0)} ms, p95 ${pct(answers, 95).toFixed(0)} ms; ${failed} of ${answers.length + failed} asks failed`,
  );
  console.log(`(host: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}; shared machines make these noisy — compare within one run)`);
} finally {
  await browser?.close();
  cleanup();
}
