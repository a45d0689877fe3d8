/**
 * Run event capture benchmark (npm run bench:events): measures, never asserts. What capture costs a long run on the
 * real app path (runs service start + wait, the agent graph, the product checkpointer, the scripted model): a
 * 50-turn run — 49 tool turns (model step + tool step each; calculator and current_time alternate, since the loop
 * guard stops one tool called 20 times in a row) and a `/reply` — with capture on and off
 * (the benchmark-only switch in server/agents/observe/capture-switch.ts).
 *
 * Runs go in pairs (one on, one off) whose order alternates, so drift (JIT, caches, a busy machine) falls on both
 * modes alike; every run gets a fresh conversation, so the thread's length is the same for each. CPU per run is
 * process.cpuUsage() around start + wait (this process does all the work). Printed: mean, p50 and p99 CPU ms per
 * run for each mode and the ratio on/off of the means and of the medians (target ≤ 1.10), plus the events a run
 * writes. Env: BENCH_ROUNDS (default 6), BENCH_RUNS (runs per mode per round, default 8), BENCH_WARMUP (default 6).
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { benchDataDir } from './bench/bench-data-dir';

const TOOL_TURNS = 49;
const SCRIPT = [...Array.from({ length: TOOL_TURNS }, (_, i) => (i % 2 ? '/call current_time' : `/call calculator {"expression":"(${i} + 7) * 3"}`)), '/reply All 49 steps done.'].join('\n');

type Mode = 'on' | 'off';

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main() {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
  const runsPerRound = Number(process.env.BENCH_RUNS ?? 8);
  const warmup = Number(process.env.BENCH_WARMUP ?? 6);
  const dataDir = await benchDataDir('ensemble-bench-events-');
  const { createUser } = await import('@/server/auth/users');
  const { closeDb, schema, writeTx } = await import('@/server/db');
  const { createConversation } = await import('@/server/agents/conversations');
  const { start, wait } = await import('@/server/agents/runs');
  const { closeCheckpointer, readCheckpointStore } = await import('@/server/agents/checkpointer');
  const { setRunEventCapture } = await import('@/server/agents/observe/capture-switch');

  const user = await createUser({ email: `bench-${crypto.randomUUID().slice(0, 8)}@bench.test`, password: 'benchmark-password' });
  const [agent] = await writeTx((tx) =>
    tx
      .insert(schema.agents)
      .values({ id: crypto.randomUUID(), ownerId: user.id, name: 'Bench', nameKey: 'bench', description: '', instructions: '', model: 'scripted', toolGroups: ['utility'], approvalTools: [], maxTurns: 60, updatedAt: new Date() })
      .returning(),
  );

  /** One 50-turn run on a fresh conversation; its CPU milliseconds. */
  async function oneRun(mode: Mode): Promise<number> {
    setRunEventCapture(mode === 'on');
    const conversation = await createConversation(user.id, agent!.id);
    const before = process.cpuUsage();
    const { run } = await start(user.id, conversation.id, { text: SCRIPT }, { idempotencyKey: crypto.randomUUID() });
    const done = await wait(run.id, 120_000);
    const used = process.cpuUsage(before);
    if (done?.status !== 'success') throw new Error(`run ended ${done?.status}: ${done?.error ?? ''}`);
    // A guard that ended the run early would measure a shorter run than the one named above.
    if (done.stopReason) throw new Error(`run stopped early (${done.stopReason})`);
    // Let settle-time maintenance (pruning) run outside the next measurement.
    await new Promise((resolve) => setImmediate(resolve));
    return (used.user + used.system) / 1000;
  }

  for (let i = 0; i < warmup; i++) await oneRun(i % 2 ? 'off' : 'on');
  const cpu: Record<Mode, number[]> = { on: [], off: [] };
  for (let round = 0; round < rounds; round++) {
    // Pairs, each in alternating order: drift over a few seconds (a busy machine) falls on both modes alike.
    for (let i = 0; i < runsPerRound; i++) {
      const order: Mode[] = (round + i) % 2 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) cpu[mode].push(await oneRun(mode));
    }
    console.log(`[bench] round ${round + 1}/${rounds}: on ${mean(cpu.on.slice(-runsPerRound)).toFixed(1)} ms, off ${mean(cpu.off.slice(-runsPerRound)).toFixed(1)} ms`);
  }
  setRunEventCapture(true);

  // run_events lives beside the checkpoints (checkpoints.db, or the `langgraph` schema on Postgres): read directly.
  type Totals = { events: number; runs: number; bytes: number };
  const totalsSql = (table: string) => `SELECT count(*) AS events, count(DISTINCT run_id) AS runs, sum(length(data)) AS bytes FROM ${table}`;
  const perRun = await readCheckpointStore(
    // eslint-disable-next-line no-restricted-syntax -- checkpoints.db (above), not the app database
    (db) => db.prepare(totalsSql('run_events')).get() as Totals,
    async (saver) => (await saver.pool.query<Totals>(totalsSql(`"${saver.schema}".run_events`))).rows[0]!,
  );
  console.log(`\n${TOOL_TURNS + 1} model turns per run; ${rounds} rounds × ${runsPerRound} runs per mode (after ${warmup} warm-up runs)`);
  console.log('mode   runs   mean CPU/run   p50 CPU/run   p99 CPU/run');
  for (const mode of ['on', 'off'] as const) {
    const xs = cpu[mode];
    console.log(`${mode.padEnd(5)} ${String(xs.length).padStart(5)} ${mean(xs).toFixed(1).padStart(11)} ms ${percentile(xs, 50).toFixed(1).padStart(10)} ms ${percentile(xs, 99).toFixed(1).padStart(10)} ms`);
  }
  console.log(`\nratio on/off: mean ${(mean(cpu.on) / mean(cpu.off)).toFixed(3)}, p50 ${(percentile(cpu.on, 50) / percentile(cpu.off, 50)).toFixed(3)} (target ≤ 1.10)`);
  console.log(`events per captured run: ${(perRun.events / perRun.runs).toFixed(0)} (${(perRun.bytes / perRun.runs / 1024).toFixed(1)} KiB of event data)`);
  closeCheckpointer();
  await closeDb();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
