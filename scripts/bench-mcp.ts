/**
 * npm run bench:mcp — what MCP calls cost (issue 28, ADR 054/055; a benchmark that prints figures, never a test).
 *
 * Every section calls the `echo` tool of @modelcontextprotocol/server-everything over stdio, on a temporary DATA_DIR
 * (SQLite unless DATABASE_URL is set), in this one process.
 *
 * 1. Client: BENCH_CALLS sequential calls (default 1,000, after 50 warm-up calls), with the SDK's Client directly
 *    and through the product's facade (callMcpTool: the definition looked up, the tool found in the discovery cache,
 *    the arguments checked against its schema on RE2, the stdio launcher's relay, the result capped).
 * 2. Through a run: BENCH_RUN_CALLS runs (default 300, after 20 warm-up runs), one at a time, each a message to a
 *    conversation whose agent has the server's echo tool; the embedded `scripted` model answers
 *    `/call mcp_<tag>_echo {...}`, the real run executor runs the graph. Each run is paired with one direct SDK call
 *    made just before it (interleaved, so both see the same machine). The figure is the run's **tool span**: the
 *    graph's ToolNode handling that one call (ObservedToolNode.runTool, the span a `step.tool` event's durationMs
 *    records, here read unrounded): the LangChain tool's input parse, the MCP tool group's call (callMcpTool as in 1,
 *    with the run's abort signal and progress hook), the result made text for the model with its provenance
 *    artifact. Not in it: the model's turns, checkpoints, the run's events. Prints p50/p95 of span − direct call
 *    (per pair; target p50 ≤ 3 ms, p95 ≤ 10 ms) and both absolute figures.
 * 3. Load on the client: 100 calls at once to one stdio server, BENCH_ROUNDS times (default 20), through the facade
 *    with the server's default cap (4 in flight) and with 64: calls lost (must be 0), wall time, event-loop delay.
 * 4. 100 concurrent runs: BENCH_CONCURRENT_RUNS runs (default 100) started at once, BENCH_RUN_ROUNDS times (default
 *    3), each calling the same shared stdio server (default cap, 4 in flight). Direct conversation runs are not
 *    scheduled team jobs: what admits them is the per-account cap on runs in flight (LIMITS.run.inFlightPerAccount,
 *    4), so they are spread over ceil(100 / 4) = 25 accounts, one conversation per run. The model takes
 *    BENCH_MODEL_MS (default 50) per turn (`/sleep`), two turns per run. Prints calls made / returned / lost (lost must
 *    be 0), event-loop delay p50/p99 (target p99 ≤ 50 ms), slot utilization (runs' busy time ÷ (100 slots × wall
 *    time)) and the model's time ÷ the slots' time beside it, and the wall time.
 *
 * Event-loop delay: perf_hooks.monitorEventLoopDelay at 1 ms resolution; the figures printed are the histogram's
 * values less that 1 ms sampling interval (the time a 1 ms timer fired late). BENCH_SECTIONS=1,2,3,4 picks sections.
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import type { ToolCall } from '@langchain/core/messages/tool';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const RUN_CALLS = Number(process.env.BENCH_RUN_CALLS ?? 300);
const RUN_WARMUP = 20;
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT_RUNS ?? 100);
const RUN_ROUNDS = Number(process.env.BENCH_RUN_ROUNDS ?? 3);
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 50);
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? '1,2,3,4').split(',').map((s) => s.trim()));
const WARMUP = 50;
const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const LOOP_RESOLUTION_MS = 1;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (v: number) => `${v.toFixed(2)} ms`;
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
/** The event-loop delay percentile in ms: the histogram's value less its sampling interval. */
const loopDelay = (h: IntervalHistogram, p: number) => Math.max(0, h.percentile(p) / 1e6 - LOOP_RESOLUTION_MS);

async function timed(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** What the wrapped ToolNode saw of MCP calls: one entry per call started, its span once it returned. */
type Span = { runTool: number; ok: boolean };
const started = new Set<string>();
const spans = new Map<string, Span>();

async function main() {
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-mcp-'));
  process.env.SCRYPT_LOG_N = '10';
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { ToolMessage } = await import('@langchain/core/messages');
  const { createDeploymentMcpServer, toMcpServerRef } = await import('@/server/mcp/store');
  const { callMcpTool, mcpServerTools } = await import('@/server/mcp');
  const { stopAllMcpConnections } = await import('@/server/mcp/connections');
  const { closeDb, databaseEngine } = await import('@/server/db');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { createConversation } = await import('@/server/agents/conversations');
  const { start, wait } = await import('@/server/agents/runs');
  const { readRunEvents } = await import('@/server/agents/observe/read');
  const { mcpToolName } = await import('@/lib/mcp/tool-name');
  const { LIMITS } = await import('@/lib/limits');
  const { busySlotTime, slotUtilization } = await import('@/server/scheduler/fairness');
  const { ObservedToolNode } = await import('@/server/agents/observe/observed-tool-node');
  // Runs are assembled as start-up does it (server/startup.ts): delegation and the MCP tool group plug in.
  (await import('@/server/agents/delegation/register')).registerDelegation();
  (await import('@/server/mcp/tool-group/register')).registerMcpTools();

  // The tool span, unrounded: the same span ObservedToolNode times for step.tool's durationMs (whole ms there).
  type RunTool = (call: ToolCall, config: unknown, state: unknown) => Promise<unknown>;
  const proto = ObservedToolNode.prototype as unknown as { runTool: RunTool };
  const runTool = proto.runTool;
  proto.runTool = async function (this: unknown, call, config, state) {
    const mcp = call.name.startsWith('mcp_') && call.id;
    if (mcp) started.add(call.id!);
    const t = performance.now();
    const result = await runTool.call(this, call, config, state);
    if (mcp) spans.set(call.id!, { runTool: performance.now() - t, ok: ToolMessage.isInstance(result) && result.status !== 'error' });
    return result;
  };

  const echo = (i: number) => ({ message: `bench ${i} 世界 🎉` });
  const engine = databaseEngine();
  console.log(`bench:mcp on ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${engine}`);

  const direct = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  await timed(WARMUP, (i) => direct.callTool({ name: 'echo', arguments: echo(i) }));

  const row = await createDeploymentMcpServer({ transport: 'stdio', name: `bench-${crypto.randomUUID().slice(0, 6)}`, command: process.execPath, args: [EVERYTHING, 'stdio'] });
  const ref = toMcpServerRef(row);
  const tools = await mcpServerTools(ref);
  if (tools.status !== 'connected') throw new Error(tools.error);

  if (SECTIONS.has('1')) {
    await timed(WARMUP, (i) => callMcpTool(ref, 'echo', echo(i)));
    // Interleaved call by call, so both paths see the same machine (other processes share its 2 cores).
    const directTimes: number[] = [];
    const oursTimes: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      let t = performance.now();
      await direct.callTool({ name: 'echo', arguments: echo(i) });
      directTimes.push(performance.now() - t);
      t = performance.now();
      await callMcpTool(ref, 'echo', echo(i));
      oursTimes.push(performance.now() - t);
    }
    const [d50, d95, o50, o95] = [percentile(directTimes, 50), percentile(directTimes, 95), percentile(oursTimes, 50), percentile(oursTimes, 95)];
    console.log(`\n1. Client overhead (${CALLS} sequential echo calls over stdio, each path in turn, after ${WARMUP} warm-up):`);
    console.log(`  SDK directly:        p50 ${ms(d50)}  p95 ${ms(d95)}`);
    console.log(`  through callMcpTool: p50 ${ms(o50)}  p95 ${ms(o95)}`);
    console.log(`  overhead:            p50 ${ms(o50 - d50)} (target ≤ 3 ms)  p95 ${ms(o95 - d95)} (target ≤ 10 ms)`);
  }

  const echoName = mcpToolName(row.id, 'echo');
  let accounts = 0;
  /** An account with an agent that has the server's echo tool (through the catalog, as the API creates it). */
  async function account() {
    const user = await createUser({ email: `bench-${++accounts}-${crypto.randomUUID().slice(0, 6)}@bench.test`, password: 'benchmark-password' });
    const agent = await createAgent(user.id, agentCreateSchema.parse({ name: 'Echo bench', toolGroups: ['utility'], mcpTools: [{ serverId: row.id, tools: ['echo'] }] }));
    return { user, agent };
  }
  const message = (marker: string, sleepMs: number) => `${sleepMs > 0 ? `/sleep ${sleepMs}\n` : ''}/call ${echoName} ${JSON.stringify({ message: marker })}`;

  /** The run's MCP step: its call id and whether it returned the run's own echo from the server. */
  async function toolStep(runId: string, marker: string) {
    const { events } = await readRunEvents(runId, 0, 1_000);
    const steps = events.filter((e) => e.type === 'step.tool' && e.tool === echoName);
    const step = steps[0] as { toolCallId: string; status: string; result: string; durationMs: number; mcp?: { server: string } } | undefined;
    const returned = steps.length === 1 && step!.status === 'success' && step!.mcp?.server === row.name && step!.result.includes(marker);
    return { step, returned, modelMs: events.reduce((sum, e) => sum + (e.type === 'model.call' ? (e as { latencyMs: number }).latencyMs : 0), 0) };
  }

  if (SECTIONS.has('2')) {
    const { user, agent } = await account();
    let conversation = await createConversation(user.id, agent.id);
    const pairs: Array<{ direct: number; span: number; recorded: number }> = [];
    let failed = 0;
    for (let i = 0; i < RUN_WARMUP + RUN_CALLS; i++) {
      // A fresh conversation every 25 runs: the thread's length is not what this measures.
      if (i % 25 === 0) conversation = await createConversation(user.id, agent.id);
      const t = performance.now();
      await direct.callTool({ name: 'echo', arguments: echo(i) });
      const directMs = performance.now() - t;
      const marker = `pair ${i} 世界 🎉`;
      const { run } = await start(user.id, conversation.id, { text: message(marker, 0) }, { idempotencyKey: crypto.randomUUID() });
      const done = await wait(run.id, 60_000);
      const { step, returned } = await toolStep(run.id, marker);
      const span = step && spans.get(step.toolCallId);
      if (done?.status !== 'success' || !returned || !step || !span?.ok) {
        failed++;
        continue;
      }
      if (i >= RUN_WARMUP) pairs.push({ direct: directMs, span: span.runTool, recorded: step.durationMs });
    }
    const diff = pairs.map((p) => p.span - p.direct);
    const spanMs = pairs.map((p) => p.span);
    const directMs = pairs.map((p) => p.direct);
    console.log(`\n2. One MCP call through a run (${pairs.length} runs, one at a time, after ${RUN_WARMUP} warm-up; ${failed} failed):`);
    console.log(`  SDK directly (same server, just before each run): p50 ${ms(percentile(directMs, 50))}  p95 ${ms(percentile(directMs, 95))}`);
    console.log(`  tool span in the run (ToolNode.runTool):          p50 ${ms(percentile(spanMs, 50))}  p95 ${ms(percentile(spanMs, 95))}`);
    console.log(`  span − direct, per pair:  p50 ${ms(percentile(diff, 50))} (target ≤ 3 ms)  p95 ${ms(percentile(diff, 95))} (target ≤ 10 ms)`);
    console.log(`  (step.tool durationMs as recorded, whole ms: p50 ${percentile(pairs.map((p) => p.recorded), 50)}  p95 ${percentile(pairs.map((p) => p.recorded), 95)})`);
  }

  if (SECTIONS.has('3')) {
    console.log('\n3. Load on the client (100 calls at once through callMcpTool):');
    for (const maxConcurrent of [row.maxConcurrent, 64]) {
      const loadRow = await createDeploymentMcpServer({ transport: 'stdio', name: `load-${maxConcurrent}-${crypto.randomUUID().slice(0, 4)}`, command: process.execPath, args: [EVERYTHING, 'stdio'], maxConcurrent });
      const loadRef = toMcpServerRef(loadRow);
      await callMcpTool(loadRef, 'echo', echo(0));
      const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
      delay.enable();
      let ok = 0;
      let failed = 0;
      const t = performance.now();
      for (let round = 0; round < ROUNDS; round++) {
        const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => callMcpTool(loadRef, 'echo', echo(round * 100 + i))));
        for (const [i, r] of results.entries()) {
          const expected = `Echo: bench ${round * 100 + i} 世界 🎉`;
          if (r.status === 'fulfilled' && r.value.parts[0]?.type === 'text' && r.value.parts[0].text === expected) ok++;
          else failed++;
        }
      }
      const wall = performance.now() - t;
      delay.disable();
      console.log(
        `  × ${ROUNDS} rounds, cap ${maxConcurrent}: ${ok} answered right, ${failed} lost or wrong; ${ms(wall / ROUNDS)} per round; ` +
          `event-loop delay p50 ${ms(loopDelay(delay, 50))} p99 ${ms(loopDelay(delay, 99))} (target ≤ 50 ms), max ${ms(delay.max / 1e6 - LOOP_RESOLUTION_MS)}`,
      );
    }
  }

  if (SECTIONS.has('4')) {
    const perAccount = LIMITS.run.inFlightPerAccount;
    const owners: Array<Awaited<ReturnType<typeof account>>> = [];
    for (let a = 0; a < Math.ceil(CONCURRENT_RUNS / perAccount); a++) owners.push(await account());
    console.log(
      `\n4. ${CONCURRENT_RUNS} concurrent runs on one shared stdio server (cap ${row.maxConcurrent} in flight), ${owners.length} accounts × ${perAccount} runs ` +
        `(the per-account cap on runs in flight), model ${MODEL_MS} ms a turn × 2 turns, after one warm-up round:`,
    );
    const allDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    const controlDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });

    /**
     * One round: CONCURRENT_RUNS runs started at once, each in its own conversation, calling the MCP echo tool or
     * (the control) the built-in calculator, which reaches no server: the same runs without MCP.
     */
    async function round(label: string, tool: 'mcp' | 'builtin', histograms: IntervalHistogram[]) {
      const conversations = await Promise.all(
        Array.from({ length: CONCURRENT_RUNS }, (_, i) => owners[Math.floor(i / perAccount)]!).map(async (o) => ({ o, c: await createConversation(o.user.id, o.agent.id) })),
      );
      started.clear();
      spans.clear();
      const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
      for (const h of [delay, ...histograms]) h.enable();
      const wallStart = Date.now();
      const t0 = performance.now();
      const runs = await Promise.all(
        conversations.map(async ({ o, c }, i) => {
          const marker = `${label} run ${i} 世界 🎉`;
          const text = tool === 'mcp' ? message(marker, MODEL_MS) : `/sleep ${MODEL_MS}\n/call calculator {"expression":"${i} * 7"}`;
          const { run } = await start(o.user.id, c.id, { text }, { idempotencyKey: crypto.randomUUID() });
          return { id: run.id, marker, done: await wait(run.id, 120_000) };
        }),
      );
      const wall = performance.now() - t0;
      for (const h of [delay, ...histograms]) h.disable();
      let returned = 0;
      let modelMs = 0;
      const intervals = [];
      for (const r of runs) {
        const step = await toolStep(r.id, r.marker);
        if (step.returned && spans.get(step.step!.toolCallId)?.ok) returned++;
        modelMs += step.modelMs;
        // A run holds one of its account's slots from its row (pending) to its end: the in-flight cap counts both.
        if (r.done?.finishedAt) intervals.push({ start: r.done.createdAt.getTime(), end: r.done.finishedAt.getTime() });
      }
      const busy = busySlotTime(intervals, wallStart, Math.max(wallStart + wall, ...intervals.map((i) => i.end)));
      const succeeded = runs.filter((r) => r.done?.status === 'success').length;
      const calls = tool === 'mcp' ? `calls made ${started.size}, returned ${returned}, lost ${started.size - returned}; ` : 'no MCP call; ';
      console.log(
        `  ${label}: ${succeeded}/${runs.length} runs succeeded; ${calls}wall ${ms(wall)}; ` +
          `event-loop delay p50 ${ms(loopDelay(delay, 50))} p99 ${ms(loopDelay(delay, 99))} max ${ms(delay.max / 1e6 - LOOP_RESOLUTION_MS)}; ` +
          `slot utilization ${pct(slotUtilization(busy, CONCURRENT_RUNS, wall))}, model time ÷ slot time ${pct(modelMs / busy)}`,
      );
      return { made: started.size, returned, succeeded, runs: runs.length };
    }

    await round('warm-up (not counted)', 'mcp', []);
    const totals = { made: 0, returned: 0, succeeded: 0, runs: 0 };
    for (let r = 1; r <= RUN_ROUNDS; r++) {
      const got = await round(`round ${r}`, 'mcp', [allDelay]);
      for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += got[k];
      await round(`round ${r}, control (built-in calculator instead)`, 'builtin', [controlDelay]);
    }
    console.log(
      `  MCP rounds: ${totals.succeeded}/${totals.runs} runs succeeded; calls made ${totals.made}, returned ${totals.returned}, lost ${totals.made - totals.returned} (must be 0); ` +
        `event-loop delay p50 ${ms(loopDelay(allDelay, 50))} p99 ${ms(loopDelay(allDelay, 99))} (target ≤ 50 ms)`,
    );
    console.log(`  control rounds (no MCP): event-loop delay p50 ${ms(loopDelay(controlDelay, 50))} p99 ${ms(loopDelay(controlDelay, 99))}`);
  }

  await direct.close();
  await stopAllMcpConnections();
  closeCheckpointer();
  await closeDb();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
