/**
 * npm run bench:providers — the app's own overhead on a streamed model call (a benchmark, not a test).
 *
 * The built app (`next start` of .next-e2e, as npm run test:providers starts it) talks to the OpenAI-compatible stub
 * (test-providers/stubs/openai.ts) in this process, and this process also reads the conversation's event stream as
 * a browser does (GET /api/v1/conversations/:id/events). Both ends on one clock:
 *
 * 1. Overhead: BENCH_RUNS runs one after another (default 100, after 5 warm-up runs); for each, the time from the
 *    stub writing the answer's first token to the `event: output` carrying it arriving here: p50 / p95
 *    (target p95 ≤ 30 ms).
 * 2. Load: BENCH_LOAD runs streaming at once (default 200: 10 accounts × 20 conversations, each watched by its own
 *    event stream, the per-account limit), twice: answers of 26 and of 116 chunks. For each: the server's CPU
 *    (user + system, /proc) per streamed chunk, its event-loop delay p99 (perf_hooks, via
 *    scripts/bench-providers.loop-delay.cjs; target ≤ 50 ms) while the runs start and while they stream, and the
 *    same first-token latency under that load; and the CPU a chunk adds (the rounds' difference).
 *
 * BENCH_TOKEN_MS (default 10) spaces the stub's chunks. E2E_SKIP_BUILD=1 reuses any build in .next-e2e.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { Api } from '../test-providers/api';
import { startApp, type App } from '../test-providers/app';
import { providerEnv, startStubs } from '../test-providers/stubs';
import { root } from './crash/server';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const WARMUP = 5;
const LOAD = Number(process.env.BENCH_LOAD ?? 200);
const STREAMS_PER_ACCOUNT = 20; // LIMITS.push.maxStreamsPerAccount
const TOKEN_MS = Number(process.env.BENCH_TOKEN_MS ?? 10);
const MODEL = 'openai:stub-bench';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
/** A process's user + system CPU in ms (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

// The stub's side: when each run's first token left, and how many chunks were streamed.
const firstTokenAt = new Map<string, number>();
let chunks = 0;
const hooks = {
  tokenDelayMs: TOKEN_MS,
  onFirstToken: (_model: string, text: string) => {
    const marker = /^bench (\S+)/.exec(text)?.[1];
    if (marker) firstTokenAt.set(marker, performance.now());
  },
  onChunk: () => void chunks++,
};

type Output = { runId: string; text: string; done: boolean };

/** Reads a conversation's event stream as a browser's EventSource does; calls `onOutput` for each `output` event. */
async function follow(url: string, token: string, conversationId: string, outputs: FirstOutputs, signal: AbortSignal): Promise<void> {
  const res = await fetch(`${url}/api/v1/conversations/${conversationId}/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal });
  if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}: ${await res.text()}`);
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === 'output') outputs.record(JSON.parse(event.data) as Output, performance.now());
    },
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch (error) {
      // A stream that ends before the bench does fails what waits on it (the server went away).
      if (!signal.aborted) outputs.fail(new Error(`the event stream of ${conversationId} ended: ${String(error)}`));
    }
  })();
}

/** Waits for the first live output of a run (with text) on a followed stream. */
class FirstOutputs {
  private readonly seen = new Map<string, number>();
  private readonly waiting = new Map<string, { resolve: (at: number) => void; reject: (error: Error) => void }>();
  private failed: Error | undefined;
  fail(error: Error) {
    this.failed ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
  record = (output: Output, at: number) => {
    if (!output.text || this.seen.has(output.runId)) return;
    this.seen.set(output.runId, at);
    this.waiting.get(output.runId)?.resolve(at);
  };
  wait(runId: string, timeoutMs = 30_000): Promise<number> {
    const at = this.seen.get(runId);
    if (at !== undefined) return Promise.resolve(at);
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no live output for run ${runId} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.set(runId, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  }
}

/** More accounts, through the e2e user factory (one process for all of them). */
async function createAccounts(app: App, count: number): Promise<string[]> {
  const child = spawn(path.join(root, 'node_modules', '.bin', 'tsx'), ['--conditions=react-server', 'e2e/support/user-factory.ts'], { cwd: root, env: app.env, stdio: ['pipe', 'pipe', 'inherit'] });
  const tokens: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as { ready?: boolean; token?: string; error?: string };
      if (message.ready) {
        for (let i = 0; i < count; i++) child.stdin.write(`${JSON.stringify({ id: i + 1, email: `bench-${i}@stub.test`, password: 'bench-password-1' })}\n`);
      } else if (message.token) {
        tokens.push(message.token);
        if (tokens.length === count) resolve();
      } else reject(new Error(`creating a user failed: ${message.error ?? line}`));
    });
    child.once('exit', (code) => tokens.length < count && reject(new Error(`the user factory exited (${code})`)));
  });
  await done;
  child.stdin.end();
  return tokens;
}

async function loopDelay(pid: number, file: string): Promise<{ p50: number; p99: number; max: number; samples: number }> {
  fs.rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error('the server wrote no event-loop figures (is the preload loaded?)');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as { p50: number; p99: number; max: number; samples: number };
}

async function main(): Promise<void> {
  const stubs = await startStubs(hooks);
  const loopFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-providers-')), 'loop-delay.json');
  const preload = path.join(root, 'scripts', 'bench-providers.loop-delay.cjs');
  const app = await startApp({
    ...providerEnv(stubs),
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
    LOOP_DELAY_OUT: loopFile,
    NEXT_TELEMETRY_DISABLED: '1',
    // The operator's cap on one provider's calls in flight (default 4) would queue the load round: it measures the
    // app with every run streaming, so the cap is raised past it.
    PROVIDER_MAX_CONCURRENT: '1000',
  });
  const stop = new AbortController();
  try {
    console.log(`bench:providers — ${os.cpus().length} CPUs, ${MODEL} with a chunk every ${TOKEN_MS} ms, next start pid ${app.pid}`);

    // 1. One run at a time.
    const api = new Api(app.url, app.token);
    const conversation = await api.createConversation(await api.createAgent(MODEL));
    const outputs = new FirstOutputs();
    await follow(app.url, app.token, conversation, outputs, stop.signal);
    const overhead: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const marker = `s${i}`;
      const { run } = await api.call<{ run: { id: string } }>('POST', `/conversations/${conversation}/messages`, { text: `bench ${marker}` }, 202);
      const arrived = await outputs.wait(run.id);
      const finished = await api.finished(run.id);
      if (finished.status !== 'success') throw new Error(`run ${run.id}: ${finished.status} ${finished.error}`);
      const sent = firstTokenAt.get(marker);
      if (sent === undefined) throw new Error(`the stub never streamed run ${marker}`);
      if (i >= WARMUP) overhead.push(arrived - sent);
    }
    console.log(`first token at the stub → event: output read by the client, ${RUNS} runs one at a time: p50 ${ms(percentile(overhead, 50))}, p95 ${ms(percentile(overhead, 95))}, max ${ms(Math.max(...overhead))} (target p95 ≤ 30 ms)`);

    // 2. LOAD runs at once, each conversation watched.
    const accounts = Math.ceil(LOAD / STREAMS_PER_ACCOUNT);
    const tokens = await createAccounts(app, accounts);
    const loadOutputs = new FirstOutputs();
    const conversations: Array<{ api: Api; id: string }> = [];
    for (let a = 0; a < accounts; a++) {
      const accountApi = new Api(app.url, tokens[a]!);
      const agentId = await accountApi.createAgent(MODEL);
      for (let c = 0; c < STREAMS_PER_ACCOUNT && conversations.length < LOAD; c++) {
        const id = await accountApi.createConversation(agentId);
        await follow(app.url, tokens[a]!, id, loadOutputs, stop.signal);
        conversations.push({ api: accountApi, id });
      }
    }
    // Two rounds, short and long answers: what a chunk adds (the difference) apart from what a run costs anyway.
    const rounds: Array<{ repeat: number; cpu: number; streamed: number }> = [];
    for (const repeat of [8, 40]) {
      await loopDelay(app.pid, loopFile); // starts the window afresh
      const cpuBefore = cpuMs(app.pid);
      const chunksBefore = chunks;
      const started = performance.now();
      const runs = await Promise.all(
        conversations.map(async ({ api: accountApi, id }, i) => {
          const marker = `l${repeat}-${i}`;
          const { run } = await accountApi.call<{ run: { id: string } }>('POST', `/conversations/${id}/messages`, { text: `bench ${marker} ${repeat}` }, 202);
          return { accountApi, runId: run.id, marker };
        }),
      );
      // Window 1: 200 runs starting (requests, graphs, first model calls) until every one has shown its first words.
      const latencies = await Promise.all(runs.map(async ({ runId, marker }) => (await loadOutputs.wait(runId, 120_000)) - firstTokenAt.get(marker)!));
      const starting = await loopDelay(app.pid, loopFile);
      const firstWords = performance.now() - started;
      // Window 2: the rest of the streaming, to each run's end.
      for (const { accountApi, runId } of runs) {
        const finished = await accountApi.finished(runId, 120_000);
        if (finished.status !== 'success') throw new Error(`run ${runId}: ${finished.status} ${finished.error}`);
      }
      const streaming = await loopDelay(app.pid, loopFile);
      const wall = performance.now() - started;
      const cpu = cpuMs(app.pid) - cpuBefore;
      const streamed = chunks - chunksBefore;
      rounds.push({ repeat, cpu, streamed });
      console.log(
        `${LOAD} runs at once, ${streamed / LOAD} chunks each (${accounts} accounts × ${STREAMS_PER_ACCOUNT} watched conversations): every run's first words shown after ${ms(firstWords)}, all done after ${ms(wall)}; ` +
          `server CPU ${ms(cpu)} = ${(cpu / streamed).toFixed(2)} ms per chunk, the whole run included; ` +
          `event-loop delay p99 ${ms(starting.p99)} (max ${ms(starting.max)}) while they start, p99 ${ms(streaming.p99)} (max ${ms(streaming.max)}) while they stream (target p99 ≤ 50 ms); ` +
          `first token → client: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}`,
      );
    }
    const [short, long] = rounds as [(typeof rounds)[0], (typeof rounds)[0]];
    console.log(`CPU a streamed chunk adds (long round − short round): ${((long.cpu - short.cpu) / (long.streamed - short.streamed)).toFixed(3)} ms per chunk`);
  } finally {
    stop.abort();
    await app.stop();
    await stubs.close();
    fs.rmSync(path.dirname(loopFile), { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
