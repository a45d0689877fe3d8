/**
 * npm run bench:mcp — the MCP client's own cost (issue 28, ADR 054; a benchmark, not a test).
 *
 * 1. Overhead: BENCH_CALLS sequential `echo` calls (default 1,000, after 50 warm-up calls) to
 *    @modelcontextprotocol/server-everything over stdio, twice: with the SDK's Client directly, and through the
 *    product's facade (callMcpTool: the definition looked up, the tool found in the discovery cache, the arguments
 *    checked against its schema on RE2, the stdio launcher's relay, the result capped). Prints p50 / p95 of each and
 *    their difference (target: p50 ≤ 3 ms, p95 ≤ 10 ms more than direct).
 * 2. Load: 100 calls at once to one stdio server, BENCH_ROUNDS times (default 20), through the facade with the
 *    server's default cap (4 in flight) and with 64: calls lost (must be 0), wall time, and this process's
 *    event-loop delay p99 (perf_hooks; target ≤ 50 ms).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WARMUP = 50;
const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (v: number) => `${v.toFixed(2)} ms`;

async function timed(n: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function main() {
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-mcp-'));
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { createDeploymentMcpServer, toMcpServerRef } = await import('@/server/mcp/store');
  const { callMcpTool, mcpServerTools } = await import('@/server/mcp');
  const { stopAllMcpConnections } = await import('@/server/mcp/connections');
  const { closeDb } = await import('@/server/db');

  // 1. Direct SDK.
  const direct = new Client({ name: 'bench', version: '1' }, { capabilities: {} });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
  const echo = (i: number) => ({ message: `bench ${i} 世界 🎉` });
  await timed(WARMUP, (i) => direct.callTool({ name: 'echo', arguments: echo(i) }));
  const directTimes = await timed(CALLS, (i) => direct.callTool({ name: 'echo', arguments: echo(i) }));
  await direct.close();

  // 1'. Through the facade.
  const row = await createDeploymentMcpServer({ transport: 'stdio', name: `bench-${crypto.randomUUID().slice(0, 6)}`, command: process.execPath, args: [EVERYTHING, 'stdio'] });
  const ref = toMcpServerRef(row);
  const tools = await mcpServerTools(ref);
  if (tools.status !== 'connected') throw new Error(tools.error);
  await timed(WARMUP, (i) => callMcpTool(ref, 'echo', echo(i)));
  const oursTimes = await timed(CALLS, (i) => callMcpTool(ref, 'echo', echo(i)));

  const d50 = percentile(directTimes, 50);
  const d95 = percentile(directTimes, 95);
  const o50 = percentile(oursTimes, 50);
  const o95 = percentile(oursTimes, 95);
  console.log(`Overhead (${CALLS} sequential echo calls over stdio, after ${WARMUP} warm-up):`);
  console.log(`  SDK directly:      p50 ${ms(d50)}  p95 ${ms(d95)}`);
  console.log(`  through callMcpTool: p50 ${ms(o50)}  p95 ${ms(o95)}`);
  console.log(`  overhead:          p50 ${ms(o50 - d50)} (target ≤ 3 ms)  p95 ${ms(o95 - d95)} (target ≤ 10 ms)`);

  // 2. 100 at once.
  for (const maxConcurrent of [row.maxConcurrent, 64]) {
    const loadRow = await createDeploymentMcpServer({ transport: 'stdio', name: `load-${maxConcurrent}-${crypto.randomUUID().slice(0, 4)}`, command: process.execPath, args: [EVERYTHING, 'stdio'], maxConcurrent });
    const loadRef = toMcpServerRef(loadRow);
    await callMcpTool(loadRef, 'echo', echo(0));
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let ok = 0;
    let failed = 0;
    const started = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => callMcpTool(loadRef, 'echo', echo(round * 100 + i))));
      for (const [i, r] of results.entries()) {
        const expected = `Echo: bench ${round * 100 + i} 世界 🎉`;
        if (r.status === 'fulfilled' && r.value.parts[0]?.type === 'text' && r.value.parts[0].text === expected) ok++;
        else failed++;
      }
    }
    const wall = performance.now() - started;
    delay.disable();
    console.log(
      `100 calls at once × ${ROUNDS} rounds, cap ${maxConcurrent}: ${ok} answered right, ${failed} lost or wrong; ` +
        `${ms(wall / ROUNDS)} per round; event-loop delay p99 ${ms(delay.percentile(99) / 1e6)} (target ≤ 50 ms), max ${ms(delay.max / 1e6)}`,
    );
  }
  await stopAllMcpConnections();
  await closeDb();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
