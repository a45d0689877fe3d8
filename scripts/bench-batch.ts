/**
 * Durable batches benchmark (npm run bench:batch; ADR 059): measures, never asserts. Runs the real scheduler, the
 * batch port and the scripted model in this process on a temporary data directory (SQLite; DATABASE_URL: Postgres),
 * and prints for each scenario: item throughput, slot utilization (the items' slot time ÷ slots × wall time), the
 * model's time ÷ the slots' time (what the machinery costs around each model call), and item latency p50/p99, both
 * from the batch's start (queueing included) and from the item's admission (its time in a slot).
 *   1. one batch of BENCH_ITEMS (300) items at concurrency 8, one owner
 *   2. the same number of items as three owners' batches at once (owner-fair sharing of the slots)
 * and issue 30's three figures:
 *   3. the planning pass (the view the scheduler reads each pass + the planner), p50/p99 over BENCH_PASSES passes,
 *      with BENCH_QUEUED (10,000) items queued against none (target ≤ 1.2×), and against as many running batches
 *      with only 8 items queued each (the same candidates offered: what differs is the queued count); the states are
 *      timed in turns, and an empty database once before them
 *   4. while those items run (one owner's batches of LIMITS.batch.maxItems each, made through createBatch with this
 *      process's livePerOwner raised to fit them), another owner's `/reply ok` team requests, sent one at a time:
 *      their queue wait (created → admitted) p50/p99/max against one item's time in a slot; the batches are then
 *      cancelled (the figure is taken while they run, not over all of them)
 *   5. BENCH_BIG (1,000) items of /sleep as one batch at concurrency 8 beside the same number of team jobs of /sleep
 *      (BIG ÷ 100 teams of two members, as a team takes 100 requests; all queued before the scheduler starts): slot
 *      utilization and model ÷ slot time
 * Settings: BENCH_SCENARIOS (default 3,4,5,1,2), BENCH_ITEMS (300), BENCH_QUEUED (10000), BENCH_BIG (1000),
 * BENCH_PASSES (500), BENCH_LIGHT (light requests, 30), BENCH_SLEEP_MS (the model's time per item, 50), BENCH_KEEP
 * (keep the data directory). Small smoke run: BENCH_QUEUED=500 BENCH_BIG=50 BENCH_ITEMS=30 BENCH_PASSES=50.
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { benchDataDir } from './bench/bench-data-dir';
import { benchOwner } from './bench/bench-owner';


const ITEMS = Number(process.env.BENCH_ITEMS) || 300;
const SLEEP_MS = Number(process.env.BENCH_SLEEP_MS ?? 50);
const QUEUED = Number(process.env.BENCH_QUEUED) || 10_000;
const BIG = Number(process.env.BENCH_BIG) || 1_000;
const PASSES = Number(process.env.BENCH_PASSES) || 500;
const LIGHT = Number(process.env.BENCH_LIGHT) || 30;
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? '3,4,5,1,2').split(',').map((x) => x.trim());
const selected = (n: number) => SCENARIOS.includes(String(n));
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;

async function main() {
  const dataDir = await benchDataDir('ensemble-bench-batch-');
  const { agentCreateSchema } = await import('@/lib/schemas/agent');
  const { LIMITS } = await import('@/lib/limits');
  const { createUser } = await import('@/server/auth/users');
  const { createAgent } = await import('@/server/agents/catalog');
  const { createBatch } = await import('@/server/batches/store');
  const { batchPort } = await import('@/server/batches/port');
  const { delegationPort } = await import('@/server/agents/delegation/port');
  const { startScheduler, stopScheduler } = await import('@/server/scheduler/runtime');
  const { teamJobs } = await import('@/server/teams/scheduler-jobs');
  const { closeDb, getDb, schema, writeTx } = await import('@/server/db');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');
  const { and, eq, inArray } = await import('drizzle-orm');
  const { statement } = await import('@/server/db/statement');
  const { inList } = await import('@/server/db/dialect');

  const { sendRequest } = await import('@/server/teams/requests');
  const { cancelBatch } = await import('@/server/batches/control');
  const { loadSchedulingView } = await import('@/server/scheduler/view');
  const { plan, emptyRound } = await import('@/server/scheduler/planner');

  const slots = LIMITS.scheduler.maxActiveJobs;
  const start = () => startScheduler(teamJobs, { delegations: delegationPort, batches: batchPort });
  /**
   * A new scheduler before each measured phase, as a fresh process has: the rotation remembers each owner present in
   * the last LIMITS.scheduler.sharedGraceMs (10 minutes) and caps another owner at maxSlotsPerOwnerWhenShared (6 of
   * 8) meanwhile, so a phase run after another owner's would measure that cap, not its own cost.
   */
  const fresh = async () => {
    await stopScheduler();
    start();
  };

  async function owner(label: string) {
    const user = await createUser({ email: `${label}-${crypto.randomUUID().slice(0, 6)}@bench.test`, password: 'benchmark-password' });
    const agent = await createAgent(user.id, agentCreateSchema.parse({ name: `Worker ${label}` }));
    return { user, agent };
  }

  /** Start the batches at once and wait (bounded) for them to end; then read their items' times. */
  async function scenario(label: string, parts: Array<{ ownerId: string; agentId: string; items: number }>) {
    const started = Date.now();
    const ids: string[] = [];
    for (const part of parts) {
      const items = Array.from({ length: part.items }, (_, i) => ({ v: String(i) }));
      const { batch } = await createBatch(part.ownerId, { target: { agentId: part.agentId }, template: `/sleep ${SLEEP_MS}\n/reply {{v}}`, columns: ['v'], items, concurrency: 8 }, { origin: 'person' });
      ids.push(batch.id);
    }
    const deadline = Date.now() + 20 * 60_000;
    for (;;) {
      const rows = await getDb().select({ status: schema.batches.status }).from(schema.batches).where(inArray(schema.batches.id, ids));
      if (rows.every((r) => r.status === 'completed')) break;
      if (Date.now() > deadline) throw new Error(`benchmark: ${label} did not end within 20 minutes`);
      await wait(20);
    }
    const items = (await Promise.all(ids.map((id) => getDb().select().from(schema.batchItems).where(eq(schema.batchItems.batchId, id))))).flat();
    const end = Math.max(...items.map((i) => i.finishedAt!.getTime()));
    const wall = end - started;
    const inSlot = items.map((i) => i.finishedAt!.getTime() - i.startedAt!.getTime()).sort((a, b) => a - b);
    const fromStart = items.map((i) => i.finishedAt!.getTime() - started).sort((a, b) => a - b);
    const slotTime = inSlot.reduce((a, b) => a + b, 0);
    const done = items.filter((i) => i.status === 'done').length;
    console.log(`${label}: ${items.length} items (${done} done) in ${(wall / 1000).toFixed(1)} s`);
    console.log(`  throughput:        ${(items.length / (wall / 1000)).toFixed(1)} items/s (the model alone on ${slots} slots: ${((slots * 1000) / SLEEP_MS).toFixed(0)} items/s)`);
    console.log(`  slot utilization:  ${((100 * slotTime) / (slots * wall)).toFixed(0)} % (items' slot time ÷ ${slots} slots × wall time)`);
    console.log(`  model ÷ slot time: ${((100 * items.length * SLEEP_MS) / slotTime).toFixed(0)} % (${SLEEP_MS} ms of model per item)`);
    console.log(`  latency in a slot: p50 ${pct(inSlot, 0.5)} ms, p99 ${pct(inSlot, 0.99)} ms (admission → recorded end)`);
    console.log(`  latency from start: p50 ${(pct(fromStart, 0.5) / 1000).toFixed(1)} s, p99 ${(pct(fromStart, 0.99) / 1000).toFixed(1)} s (the batch's start → the item's recorded end)`);
    if (parts.length > 1) {
      const byOwner = parts.map((p, k) => items.filter((i) => i.batchId === ids[k]).map((i) => i.finishedAt!.getTime()));
      console.log(`  per owner, last item at: ${byOwner.map((t) => `${((Math.max(...t) - started) / 1000).toFixed(1)} s`).join(', ')}`);
    }
  }

  /** Slot utilization and model ÷ slot time over [first admission, last end] from each unit's (admitted, ended). */
  function usage(spans: Array<[number, number]>) {
    const first = Math.min(...spans.map((x) => x[0]));
    const wall = Math.max(...spans.map((x) => x[1])) - first;
    const inSlot = spans.map(([a, b]) => b - a).sort((a, b) => a - b);
    const slotTime = inSlot.reduce((a, b) => a + b, 0);
    return {
      wall,
      throughput: spans.length / (wall / 1000),
      utilization: (100 * slotTime) / (slots * wall),
      effective: (100 * spans.length * SLEEP_MS) / slotTime,
      modelOverSlots: (100 * spans.length * SLEEP_MS) / (slots * wall),
      p50: pct(inSlot, 0.5),
      p99: pct(inSlot, 0.99),
    };
  }
  async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`benchmark: ${what} did not happen within ${timeoutMs} ms`);
      await wait(20);
    }
  }
  const jobRows = (ids: string[]) => getDb().select().from(schema.jobs).where(inArray(schema.jobs.id, ids));
  const countItems = statement(`select count(*) as n from batch_items where status = ? and ${inList('batch_id')}`);
  const itemsIn = async (status: string, batchIds: string[]) => Number((await countItems.get<{ n: number }>(status, batchIds))!.n);

  // ── 3. The planning pass with QUEUED items queued, against none (the scheduler stopped: nothing admits them) ──
  const flood = selected(3) || selected(4) ? await owner('flood') : undefined;
  const light = selected(4) ? await benchOwner('light', 5) : undefined;
  const floodIds: string[] = [];
  // Warm-up passes before each state's timed ones: a state's code paths (the item candidates) are compiled first, so
  // the first state measured with items does not pay the JIT's warm-up the later ones skip.
  const WARM = 300;
  /** Each pass timed alone: the view's read and the plan, as SchedulerRuntime.planAndAdmit runs them. */
  const passes = async (n: number) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const view = await loadSchedulingView();
      plan({ ...view, maxActive: slots, round: emptyRound(), maxPerOwnerWhenShared: LIMITS.scheduler.maxSlotsPerOwnerWhenShared, sharedGraceMs: LIMITS.scheduler.sharedGraceMs, now: Date.now() });
      ms.push(performance.now() - t0);
    }
    return ms.sort((a, b) => a - b);
  };
  if (flood) {
    // One owner's batches of maxItems each: LIMITS.batch.livePerOwner (5) would refuse the sixth, so this process
    // raises it to fit them (and figure 3's as many small ones); each is made through createBatch as the API makes it.
    const per = LIMITS.batch.maxItems;
    const batchCount = Math.ceil(QUEUED / per);
    (LIMITS.batch as { livePerOwner: number }).livePerOwner = Math.max(LIMITS.batch.livePerOwner, 2 * batchCount);
    let empty: number[] = [];
    const fewIds: string[] = [];
    if (selected(3)) {
      await passes(WARM);
      empty = await passes(PASSES);
      // As many running batches with only their concurrency's worth queued each: a pass offers the same candidates
      // (concurrency − running per batch) as with QUEUED, so what differs from it is the queued count.
      for (let b = 0; b < batchCount; b++) {
        const items = Array.from({ length: 8 }, (_, i) => ({ v: String(i) }));
        fewIds.push((await createBatch(flood.user.id, { target: { agentId: flood.agent.id }, template: `/sleep ${SLEEP_MS}\n/reply {{v}}`, columns: ['v'], items, concurrency: 8 }, { origin: 'person' })).batch.id);
      }
    }
    const t0 = Date.now();
    for (let made = 0; made < QUEUED; made += per) {
      const n = Math.min(per, QUEUED - made);
      const items = Array.from({ length: n }, (_, i) => ({ v: String(made + i) }));
      const { batch } = await createBatch(flood.user.id, { target: { agentId: flood.agent.id }, template: `/sleep ${SLEEP_MS}\n/reply {{v}}`, columns: ['v'], items, concurrency: 8 }, { origin: 'person' });
      floodIds.push(batch.id);
    }
    console.log(`(made ${floodIds.length} batches, ${QUEUED} items, in ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    if (selected(3)) {
      // The three states timed in turns (ROUNDS rounds), so the shared machine's load falls on each alike. A state is
      // which batches are 'running'; the others are parked as 'cancelling', whose queued items a pass never reads.
      const setStatus = (ids: string[], status: 'running' | 'cancelling') =>
        writeTx((tx) => tx.update(schema.batches).set({ status }).where(inArray(schema.batches.id, ids)));
      const states = { none: [] as string[], few: fewIds, queued: floodIds };
      const timed = { none: [] as number[], few: [] as number[], queued: [] as number[] };
      const enter = async (state: keyof typeof states) => {
        await setStatus([...fewIds, ...floodIds], 'cancelling');
        if (states[state].length) await setStatus(states[state], 'running');
      };
      for (const state of ['none', 'few', 'queued'] as const) {
        await enter(state);
        await passes(WARM);
      }
      const ROUNDS = 10;
      for (let round = 0; round < ROUNDS; round++) {
        for (const state of ['none', 'few', 'queued'] as const) {
          await enter(state);
          timed[state].push(...(await passes(Math.ceil(PASSES / ROUNDS))));
        }
      }
      for (const ms of Object.values(timed)) ms.sort((a, b) => a - b);
      await setStatus(fewIds, 'running');
      for (const id of fewIds) await cancelBatch(flood.user.id, id);
      await enter('queued');
      const f = (ms: number[]) => `p50 ${pct(ms, 0.5).toFixed(2)} ms, p99 ${pct(ms, 0.99).toFixed(2)} ms`;
      const ratio = (a: number[], b: number[]) => `${(pct(a, 0.5) / pct(b, 0.5)).toFixed(2)}× / ${(pct(a, 0.99) / pct(b, 0.99)).toFixed(2)}×`;
      console.log(`3. planning pass (view + plan), ${PASSES} passes each`);
      console.log(`  empty database (timed first):          ${f(empty)}`);
      console.log(`  in turns, ${ROUNDS} rounds: no batch running:  ${f(timed.none)}`);
      console.log(`  ${batchCount} batches, 8 items queued each:        ${f(timed.few)}`);
      console.log(`  ${batchCount} batches, ${QUEUED} items queued:       ${f(timed.queued)}`);
      console.log(`  ratio p50 / p99, ${QUEUED} queued against none running: ${ratio(timed.queued, timed.none)} (target ≤ 1.2×)`);
      console.log(`  ratio p50 / p99, ${QUEUED} against ${batchCount * 8} in as many batches: ${ratio(timed.queued, timed.few)}`);
    }
    // Without scenario 4 the flood would run beside the later scenarios.
    if (!light) for (const id of floodIds) await cancelBatch(flood.user.id, id);
  }

  // ── 4. Another owner's light requests while the flood runs ──
  if (flood && light) {
    start();
    const floodStarted = Date.now();
    await until(async () => (await itemsIn('done', floodIds)) >= slots, 60_000, 'the flood running');
    const members = light.teams.flatMap((t) => t.members.map((m) => ({ teamId: t.id, memberId: m.id })));
    const waits: number[] = [];
    for (let i = 0; i < LIGHT; i++) {
      const target = members[i % members.length]!;
      const { jobs } = await sendRequest(light.user.id, target.teamId, { memberIds: [target.memberId], text: '/reply ok', draftKey: `light-${i}` });
      const id = jobs[0]!.id;
      await until(async () => (await jobRows([id]))[0]!.completedAt !== null, 60_000, `light request ${i}`);
      const row = (await jobRows([id]))[0]!;
      waits.push(row.admittedAt!.getTime() - row.createdAt.getTime());
      await wait((i * 37) % 150); // arrive at varied points of the items' progress
    }
    const done = await itemsIn('done', floodIds);
    const measuredFor = Date.now() - floodStarted;
    const ran = await getDb().select().from(schema.batchItems).where(and(inArray(schema.batchItems.batchId, floodIds), eq(schema.batchItems.status, 'done')));
    const itemMs = ran.map((i) => i.finishedAt!.getTime() - i.startedAt!.getTime()).sort((a, b) => a - b);
    for (const id of floodIds) await cancelBatch(flood.user.id, id);
    await stopScheduler();
    waits.sort((a, b) => a - b);
    console.log(`4. ${LIGHT} light requests (/reply ok, one at a time) while one owner's ${QUEUED} items run`);
    console.log(`  their queue wait (created → admitted): p50 ${pct(waits, 0.5)} ms, p99 ${pct(waits, 0.99)} ms, max ${waits[waits.length - 1]} ms`);
    console.log(`  one item's time in a slot: p50 ${pct(itemMs, 0.5)} ms, p99 ${pct(itemMs, 0.99)} ms (target: max wait ≤ one item's duration)`);
    console.log(`  the flood meanwhile: ${done} items done in ${(measuredFor / 1000).toFixed(1)} s; the rest cancelled`);
  }

  // ── 5. BIG items of /sleep as a batch, beside as many team jobs of /sleep ──
  if (selected(5)) {
    // A team takes LIMITS.team.requests requests in its life: enough teams (two members each) for BIG jobs.
    const team = await benchOwner('team', Math.max(5, Math.ceil(BIG / LIMITS.team.requests)));
    const members = team.teams.flatMap((t) => t.members.map((m) => ({ teamId: t.id, memberId: m.id })));
    const ids: string[] = [];
    for (let i = 0; i < BIG; i++) {
      const target = members[i % members.length]!;
      const { jobs } = await sendRequest(team.user.id, target.teamId, { memberIds: [target.memberId], text: `/sleep ${SLEEP_MS}\n/reply ${i}`, draftKey: `t-${i}` });
      ids.push(jobs[0]!.id);
    }
    await fresh();
    const settled = statement(`select count(*) as n from jobs where status in ('completed','failed') and ${inList('id')}`);
    await until(async () => Number((await settled.get<{ n: number }>(ids))!.n) === ids.length, 20 * 60_000, 'the team jobs');
    const jobs = await jobRows(ids);
    const teamUse = usage(jobs.map((j) => [j.admittedAt!.getTime(), j.completedAt!.getTime()]));
    const teamFailed = jobs.filter((j) => j.status !== 'completed').length;
    const b = await owner('big');
    await fresh();
    const items = Array.from({ length: BIG }, (_, i) => ({ v: String(i) }));
    const { batch } = await createBatch(b.user.id, { target: { agentId: b.agent.id }, template: `/sleep ${SLEEP_MS}\n/reply {{v}}`, columns: ['v'], items, concurrency: 8 }, { origin: 'person' });
    await until(async () => (await getDb().select({ status: schema.batches.status }).from(schema.batches).where(eq(schema.batches.id, batch.id)))[0]!.status === 'completed', 20 * 60_000, 'the batch');
    const rows = await getDb().select().from(schema.batchItems).where(eq(schema.batchItems.batchId, batch.id));
    const batchUse = usage(rows.map((r) => [r.startedAt!.getTime(), r.finishedAt!.getTime()]));
    const itemsFailed = rows.filter((r) => r.status !== 'done').length;
    const line = (label: string, u: ReturnType<typeof usage>, failed: number) =>
      `  ${label.padEnd(22)} ${u.throughput.toFixed(1).padStart(6)}/s  ${u.utilization.toFixed(0).padStart(4)} %  ${u.effective.toFixed(0).padStart(5)} %  ${u.modelOverSlots.toFixed(0).padStart(5)} %  ${u.p50} / ${u.p99} ms  (${failed} failed, ${(u.wall / 1000).toFixed(1)} s)`;
    console.log(`5. ${BIG} units of /sleep ${SLEEP_MS} on ${slots} slots (first admission → last end)`);
    console.log(`  ${''.padEnd(22)} thruput  slot util  model÷slot  model÷(slots×wall)  in a slot p50 / p99`);
    console.log(line(`${BIG} team jobs`, teamUse, teamFailed));
    console.log(line(`${BIG} batch items (c=8)`, batchUse, itemsFailed));
  }

  if (selected(1)) {
    const solo = await owner('solo');
    await fresh();
    await scenario(`1. one batch of ${ITEMS} items, concurrency 8`, [{ ownerId: solo.user.id, agentId: solo.agent.id, items: ITEMS }]);
  }
  if (selected(2)) {
    const three = await Promise.all(['a', 'b', 'c'].map(owner));
    await fresh();
    const share = Math.floor(ITEMS / 3);
    await scenario(
      `2. three owners' batches of ${share} items at once`,
      three.map((o) => ({ ownerId: o.user.id, agentId: o.agent.id, items: share })),
    );
  }

  await stopScheduler();
  closeCheckpointer();
  await closeDb();
  if (process.env.BENCH_KEEP) console.log(`kept ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
