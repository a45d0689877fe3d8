/**
 * Abuse benchmark (npm run bench:abuse): the real built server under three abuses, figures printed (and recorded by
 * hand in docs/performance.md). Loopback only, bounded, stops by itself.
 *
 * 1. 200 concurrent wrong-password sign-ins for one account, each claiming its own X-Forwarded-For: every one must
 *    be limited (429) except the few the (account, address) pair allows — the limiter keys on the socket address
 *    and ignores X-Forwarded-For without TRUST_PROXY, so the varied header buys nothing.
 * 2. GET /api/health latency (p50/p99) while that flood is in flight (target p99 ≤ 50 ms).
 * 3. A 100 MB chunked body (no Content-Length) to POST /api/v1/agents: 413 long before it is sent, and the server's
 *    resident memory (VmRSS from /proc/<pid>/status) grows ≤ 20 MB.
 * 4. A chat message that delegates with output_schema {"pattern":"^(a+)+$"} and a 40-character child output that
 *    does not match (the regex freeze: on a backtracking engine it blocks the event loop for hours): the server's
 *    event-loop delay p99 while the run happens (a --require preload measures it in next start:
 *    scripts/bench-providers.loop-delay.cjs; target ≤ 50 ms), and /api/health meanwhile.
 *
 * Uses the build in BENCH_DIST_DIR (default .next-bench; built first when missing), a temporary DATA_DIR and port
 * BENCH_PORT (default 3290). Run with `tsx --conditions=react-server` (the user CLI needs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const DIST = process.env.BENCH_DIST_DIR || '.next-bench';
const PORT = Number(process.env.BENCH_PORT) || 3290;
const HOST = '127.0.0.1';
const BASE = `http://${HOST}:${PORT}`;
const FLOOD = 200;
const BIG_BODY = 100 * 1024 * 1024;
const PASSWORD = 'correct horse battery staple';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-abuse-'));
const loopFile = path.join(dataDir, 'loop-delay.json');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(ROOT, 'scripts', 'bench-providers.loop-delay.cjs')}`.trim(),
  LOOP_DELAY_OUT: loopFile,
  DATA_DIR: dataDir,
  NEXT_DIST_DIR: DIST,
  AUTH_SECRET: crypto.randomBytes(32).toString('base64url'),
  NODE_ENV: 'production',
  NEXT_TELEMETRY_DISABLED: '1',
};
delete env.TRUST_PROXY; // the default deployment: no proxy trusted

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : NaN;
}

function request(
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ms: performance.now() - started }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`timeout: ${method} ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The server's event-loop delay since the previous call (the preload writes it on SIGUSR2, then starts afresh). */
async function loopDelay(pid: number): Promise<{ p50: number; p99: number; max: number; samples: number }> {
  fs.rmSync(loopFile, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (!fs.existsSync(loopFile)) {
    if (Date.now() > deadline) throw new Error('the server wrote no event-loop figures (is the preload loaded?)');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(fs.readFileSync(loopFile, 'utf8')) as { p50: number; p99: number; max: number; samples: number };
}

/** The regex freeze: a delegation whose output_schema pattern backtracks exponentially on this child output. */
const freezingMessage = (value: string) =>
  `/call task ${JSON.stringify({
    description: 'Regex',
    prompt: `/call submit_output ${JSON.stringify({ s: value })}`,
    output_schema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] },
  })}`;

/** Send a chat message over the API and wait for its run to finish (bounded); the run as the API shows it. */
async function chatRun(token: string, conversationId: string, text: string): Promise<{ status: string; ms: number }> {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const started = performance.now();
  const sent = await request('POST', `${BASE}/api/v1/conversations/${conversationId}/messages`, auth, JSON.stringify({ text }));
  if (sent.status !== 202) throw new Error(`message: ${sent.status} ${sent.text}`);
  const { run } = JSON.parse(sent.text) as { run: { id: string } };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const { status } = (JSON.parse((await request('GET', `${BASE}/api/v1/runs/${run.id}`, auth)).text) as { run: { status: string } }).run;
    if (status !== 'pending' && status !== 'running') return { status, ms: performance.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${run.id} did not finish within 60 s`);
}

async function waitForHealth(deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    try {
      if ((await request('GET', `${BASE}/api/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not answer /api/health within ${deadlineMs} ms`);
}

/** Send a chunked body of `total` bytes; stop sending as soon as the response arrives. */
function sendHugeChunked(url: string, headers: Record<string, string>, total: number, onProgress: () => void) {
  return new Promise<{ status: number; sentBytes: number; text: string }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'transfer-encoding': 'chunked' }, agent: false });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, sentBytes: sent, text });
      });
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        onProgress();
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, DIST, 'BUILD_ID'))) {
    console.log(`No build in ${DIST}: building (next build)…`);
    const built = spawnSync(path.join(ROOT, 'node_modules/.bin/next'), ['build'], { cwd: ROOT, env, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('next build failed');
  }

  // The account under attack, and a token for the body test (the first account: the admin).
  const email = `owner-${crypto.randomUUID().slice(0, 8)}@bench.test`;
  const cli = spawnSync(
    path.join(ROOT, 'node_modules/.bin/tsx'),
    ['--conditions=react-server', 'scripts/user.ts', 'create', '--email', email, '--password', PASSWORD, '--token'],
    { cwd: ROOT, env, encoding: 'utf8' },
  );
  if (cli.status !== 0) throw new Error(`user CLI failed: ${cli.stderr}`);
  const { token } = JSON.parse(cli.stdout.trim().split('\n').pop()!) as { token: string };

  const server = spawn(path.join(ROOT, 'node_modules/.bin/next'), ['start', '--port', String(PORT), '--hostname', HOST], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let serverLog = '';
  server.stdout.on('data', (c: Buffer) => (serverLog += c.toString()));
  server.stderr.on('data', (c: Buffer) => (serverLog += c.toString()));
  const stop = () => {
    if (server.exitCode === null) server.kill('SIGTERM');
  };
  process.on('exit', stop);

  try {
    await waitForHealth(60_000);
    const pid = server.pid!;

    // Warm up the routes involved so first-compile costs are not measured.
    for (let i = 0; i < 20; i++) await request('GET', `${BASE}/api/health`);
    await request('GET', `${BASE}/api/v1/me`, { authorization: `Bearer ${token}` });
    await request('POST', `${BASE}/api/auth/callback/credentials`, { 'content-type': 'application/x-www-form-urlencoded' }, 'email=x');
    const baseline: number[] = [];
    for (let i = 0; i < 100; i++) baseline.push((await request('GET', `${BASE}/api/health`)).ms);
    baseline.sort((a, b) => a - b);

    // 1 + 2: the sign-in flood, with /api/health probed one request at a time while it lasts.
    const csrf = await request('GET', `${BASE}/api/auth/csrf`);
    const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
    const cookie = (csrf.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');
    const body = new URLSearchParams({ email, password: 'wrong password!', csrfToken, callbackUrl: '/agents' }).toString();
    let flooding = true;
    const healthDuring: number[] = [];
    const probe = (async () => {
      while (flooding) healthDuring.push((await request('GET', `${BASE}/api/health`)).ms);
    })();
    const floodStarted = performance.now();
    const results = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        request('POST', `${BASE}/api/auth/callback/credentials`, {
          'content-type': 'application/x-www-form-urlencoded',
          cookie,
          'x-forwarded-for': `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}`,
        }, body).catch((err: Error) => ({ status: -1, ms: NaN, text: err.message, headers: {} })),
      ),
    );
    const floodMs = performance.now() - floodStarted;
    flooding = false;
    await probe;
    // Limited = 429 at the door, or next-auth's redirect carrying code=rate_limited (authorize's own check, which
    // closes the race between concurrent attempts); anything else reached the password check.
    const outcome = (r: { status: number; headers: http.IncomingHttpHeaders }) => {
      if (r.status === 429) return '429 rate_limited';
      const code = /[?&]code=([\w-]+)/.exec(String(r.headers.location ?? ''))?.[1];
      return `${r.status}${code ? ` code=${code}` : ''}`;
    };
    const byStatus = new Map<string, number>();
    for (const r of results) byStatus.set(outcome(r), (byStatus.get(outcome(r)) ?? 0) + 1);
    const limited = results.filter((r) => /rate_limited/.test(outcome(r))).length;
    healthDuring.sort((a, b) => a - b);
    // The right password from the same address is still refused while the address is limited.
    const owner = await request('POST', `${BASE}/api/auth/callback/credentials`, { 'content-type': 'application/x-www-form-urlencoded', cookie },
      new URLSearchParams({ email, password: PASSWORD, csrfToken, callbackUrl: '/agents' }).toString());

    // 3: a 100 MB chunked body.
    const rssBefore = rssKb(pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb(pid))), 20);
    let chunksSent = 0;
    const big = await sendHugeChunked(
      `${BASE}/api/v1/agents`,
      { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      BIG_BODY,
      () => {
        if (++chunksSent % 16 === 0) rssPeak = Math.max(rssPeak, rssKb(pid));
      },
    );
    clearInterval(sampler);
    const rssAfter = rssKb(pid);
    rssPeak = Math.max(rssPeak, rssAfter);
    const healthAfter = await request('GET', `${BASE}/api/health`);

    // 4: the regex freeze, after a warm-up run of the same delegation with a matching output.
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const agent = JSON.parse((await request('POST', `${BASE}/api/v1/agents`, auth, JSON.stringify({ name: 'Regex bench' }))).text) as { id: string };
    const conversation = JSON.parse((await request('POST', `${BASE}/api/v1/conversations`, auth, JSON.stringify({ agentId: agent.id }))).text) as { id: string };
    await chatRun(token, conversation.id, freezingMessage('a'.repeat(40)));
    await loopDelay(pid); // starts the window afresh
    let freezing = true;
    const healthDuringRegex: number[] = [];
    const regexProbe = (async () => {
      while (freezing) healthDuringRegex.push((await request('GET', `${BASE}/api/health`)).ms);
    })();
    const regexRun = await chatRun(token, conversation.id, freezingMessage(`${'a'.repeat(39)}!`));
    const regexLoop = await loopDelay(pid);
    freezing = false;
    await regexProbe;
    healthDuringRegex.sort((a, b) => a - b);

    const fmt = (n: number) => n.toFixed(1);
    console.log('\nbench:abuse — real server (next start), loopback, no TRUST_PROXY');
    console.log(`\n1. ${FLOOD} concurrent wrong-password sign-ins, ${FLOOD} different X-Forwarded-For values (${fmt(floodMs)} ms)`);
    console.log(`   answers: ${[...byStatus].map(([s, n]) => `${n} × ${s}`).join(', ')}`);
    console.log(`   limited: ${limited} of ${FLOOD}; reached the password check: ${FLOOD - limited}`);
    console.log(`   the right password from that address afterwards: ${outcome(owner)} (limited while the address is)`);
    console.log(`   load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores`);
    console.log(`\n2. /api/health during the flood: ${healthDuring.length} probes, p50 ${fmt(percentile(healthDuring, 50))} ms, p99 ${fmt(percentile(healthDuring, 99))} ms, max ${fmt(healthDuring.at(-1) ?? NaN)} ms (target p99 ≤ 50 ms)`);
    console.log(`   /api/health at rest: p50 ${fmt(percentile(baseline, 50))} ms, p99 ${fmt(percentile(baseline, 99))} ms`);
    console.log(`\n3. 100 MB chunked body to POST /api/v1/agents: ${big.status} after the client had sent ${(big.sentBytes / 1024 / 1024).toFixed(1)} MB`);
    console.log(`   server VmRSS: before ${(rssBefore / 1024).toFixed(1)} MB, peak ${(rssPeak / 1024).toFixed(1)} MB, after ${(rssAfter / 1024).toFixed(1)} MB → growth ${((rssPeak - rssBefore) / 1024).toFixed(1)} MB (target ≤ 20 MB)`);
    console.log(`   server still healthy afterwards: ${healthAfter.status}`);
    console.log(`\n4. output_schema {"pattern":"^(a+)+$"} on a 40-character child output that does not match: run ${regexRun.status} in ${fmt(regexRun.ms)} ms`);
    console.log(`   server event-loop delay during the run: p50 ${fmt(regexLoop.p50)} ms, p99 ${fmt(regexLoop.p99)} ms, max ${fmt(regexLoop.max)} ms (${regexLoop.samples} samples; target p99 ≤ 50 ms)`);
    console.log(`   /api/health during it: ${healthDuringRegex.length} probes, p99 ${fmt(percentile(healthDuringRegex, 99))} ms`);
    const ok =
      limited >= FLOOD - 5 && percentile(healthDuring, 99) <= 50 && big.status === 413 && rssPeak - rssBefore <= 20 * 1024 && regexLoop.p99 <= 50;
    console.log(`\n${ok ? 'All targets met.' : 'Some targets missed (see above).'}`);
  } catch (err) {
    console.error(serverLog.slice(-3000));
    throw err;
  } finally {
    stop();
    await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(null)));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
