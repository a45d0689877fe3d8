/**
 * Scheduler benchmark (npm run bench:scheduler): measures, never asserts. Runs the real scheduler, team
 * workers and scripted model in this process on a temporary data directory and prints:
 *   1. slot utilization and owner fairness: 10 owners × 5 teams × 20 requests at /sleep 50
 *   2. a flooding owner (500 requests) against a light one (5): the light owner's admission waits
 *   3. planning-pass time with 10,000 finished jobs in the database ÷ with none
 *   4. a flood of long jobs vs a newcomer (the shared cap, docs/decisions/004): the newcomer's admission wait
 *      against one short job's duration, while another owner is active, within the grace window, and past it
 *   5. the cost of synchronous=FULL: per-commit time and end-to-end jobs/s, FULL vs NORMAL
 *   6. CPU per job at conversation lengths of ~10 and ~500 messages (and scenario 1 prints CPU per job and the
 *      effective utilization: the model's time ÷ the slots' time)
 *   7. a job's CPU by phase (send, admit, launch, run, finalize), one job at a time without the scheduler
 * Run with `tsx --conditions=react-server` so 'server-only' resolves to its empty build. Settings: BENCH_SCENARIOS
 * (default all), BENCH_SLEEP_MS (50), BENCH_SLOTS and BENCH_REQUESTS_PER_OWNER (scenario 1: 8 and 100),
 * BENCH_LENGTH_ROUNDS (scenario 6: 5), BENCH_KEEP (keep the data directory, to read the jobs' and runs' times
 * afterwards).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { benchOwner } from './bench/bench-owner';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-'));
process.env.DATA_DIR = dataDir;
process.env.SCRYPT_LOG_N = '10';
// A short grace window so "alone for longer than the grace window" fits in a benchmark (default 10 minutes).
process.env.SCHEDULER_SHARED_GRACE_MS ??= '5000';

const SLEEP_MS = Number(process.env.BENCH_SLEEP_MS ?? 50);
// Scenario 1's size: requests per owner (10 owners) and slots. BENCH_SLOTS=1 shows a job's own latency, uncontended.
const REQUESTS_PER_OWNER = Number(process.env.BENCH_REQUESTS_PER_OWNER) || 100;
const SLOTS = Number(process.env.BENCH_SLOTS) || undefined;
const SHORT_MS = 200;
const LONG_MS = 4000;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function main() {
  const { sendRequest } = await import('@/server/teams/requests');
  const { startScheduler, stopScheduler } = await import('@/server/scheduler/runtime');
  const { teamJobs } = await import('@/server/teams/scheduler-jobs');
  // Delegation plugs into the run core as start-up does (server/startup.ts), so runs are assembled as in the app.
  (await import('@/server/agents/delegation/register')).registerDelegation();
  (await import('@/server/mcp/tool-group/register')).registerMcpTools();
  const { closeDb, databaseEngine, getDb, schema, writeTx } = await import('@/server/db');
  const { execute, rows, statement } = await import('@/server/db/statement');
  const { inList } = await import('@/server/db/dialect');
  const { activeEngine } = await import('@/server/db/active-engine');
  const { closeCheckpointer } = await import('@/server/agents/checkpointer');
  const { jainIndex, busySlotTime, slotUtilization } = await import('@/server/scheduler/fairness');
  const { loadSchedulingView } = await import('@/server/scheduler/view');
  const { plan, emptyRound } = await import('@/server/scheduler/planner');
  const { LIMITS } = await import('@/lib/limits');
  const { inArray, sql } = await import('drizzle-orm');

  const slots = SLOTS ?? LIMITS.scheduler.maxActiveJobs;


  /** Send `count` requests for an owner, spread round-robin over its teams' members. */
  async function send(o: Awaited<ReturnType<typeof benchOwner>>, count: number, tag: string, sleepMs = SLEEP_MS): Promise<string[]> {
    const members = o.teams.flatMap((t) => t.members.map((m) => ({ teamId: t.id, memberId: m.id })));
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const target = members[i % members.length]!;
      const { jobs } = await sendRequest(o.user.id, target.teamId, { memberIds: [target.memberId], text: `/sleep ${sleepMs}\n/reply ${tag} ${i}`, draftKey: `${tag}-${i}` });
      ids.push(jobs[0]!.id);
    }
    return ids;
  }

  const jobRow = async (id: string) => (await getDb().select().from(schema.jobs).where(inArray(schema.jobs.id, [id])))[0]!;
  const held = statement(`select count(*) as n from jobs where owner_id = ? and status in ('running','cancelling')`);
  const heldBy = async (ownerId: string) => Number((await held.get<{ n: number }>(ownerId))!.n);
  async function until(check: () => Promise<boolean>, timeoutMs: number, what: string) {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`benchmark: ${what} did not happen within ${timeoutMs} ms`);
      await wait(5);
    }
  }
  /** Send one short job for the owner and return how long it waited for admission (ms). */
  async function newcomerWait(o: Awaited<ReturnType<typeof benchOwner>>, tag: string): Promise<{ id: string; waitMs: number }> {
    const [id] = await send(o, 1, tag, SHORT_MS);
    await until(async () => (await jobRow(id!)).admittedAt !== null, 120_000, `admission of ${tag}`);
    const row = await jobRow(id!);
    return { id: id!, waitMs: row.admittedAt!.getTime() - row.createdAt.getTime() };
  }

  // Polled with one cheap count (the rows are read once, at the end): the benchmark's own polling must not take a
  // noticeable share of the CPU it measures.
  const settledCount = statement(`select count(*) as n from jobs where status in ('completed','failed') and ${inList('id')}`);
  /**
   * Wait until every job has settled. `pollMs` 1000 in scenario 1 (250 in 6, 40 ids): each count walks the ids (~5 ms
   * for 1,000 ids; at 20 ms it was a visible share of the CPU measured, at 250 ms still ~0.4 ms per job); the times
   * come from the rows' own timestamps, so a later look changes no time there, and waiting idle adds no CPU.
   */
  async function waitAll(ids: string[], timeoutMs: number, pollMs = 20) {
    const deadline = Date.now() + timeoutMs;
    while (Number((await settledCount.get<{ n: number }>(ids))!.n) < ids.length) {
      if (Date.now() > deadline) throw new Error(`benchmark jobs did not finish within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
    return getDb().select().from(schema.jobs).where(inArray(schema.jobs.id, ids));
  }
  /** The SQLite writer's counts so far (server/db/group-commit.ts); none on Postgres. */
  const writerStats = () => {
    const engine = activeEngine();
    return engine.kind === 'sqlite' ? { ...engine.sqlite.writes.stats } : null;
  };
  /** The checkpoint file's shared-fsync counts so far (server/agents/checkpoint/shared-fsync.ts); none on Postgres. */
  const checkpointStats = async () => {
    const saver = (await import('@/server/agents/checkpointer')).getCheckpointer();
    return saver.engine === 'sqlite' ? { ...saver.fsync.stats } : null;
  };
  /** CPU time (user + system) of this process, in ms. */
  const cpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };

  const figures: Record<string, string> = {};

  // BENCH_SCENARIOS=4,5 runs only those (1 includes 2); default: all.
  const scenarios = (process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6,7').split(',').map((x) => x.trim());
  const selected = (n: number) => scenarios.includes(String(n));
  const owners: Awaited<ReturnType<typeof benchOwner>>[] = [];
  // Started after scenario 1 has queued its requests: sending awaits each write, and a running scheduler would
  // admit the first owners' work before the last owners had any queued.
  let scheduler: ReturnType<typeof startScheduler> | undefined;
  const ensureScheduler = () => (scheduler ??= startScheduler(teamJobs, { tickMs: 250, maxActive: slots }));

  // ── 1. Utilization and fairness ──
  if (selected(1)) {
  for (let i = 0; i < 10; i++) owners.push(await benchOwner(`owner${i}`, 5));
  const cpuBefore = cpuMs();
  const loopBefore = performance.eventLoopUtilization();
  // How long a callback (an HTTP request, a push update) waits for the loop while jobs run.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const writesBefore = writerStats();
  const stepsBefore = await checkpointStats();
  const ids: string[] = [];
  for (const [i, o] of owners.entries()) ids.push(...(await send(o, REQUESTS_PER_OWNER, `u${i}`)));
  ensureScheduler();
  const rows = await waitAll(ids, 600_000, 1000);
  const cpuPerJob = (cpuMs() - cpuBefore) / ids.length;
  const loop = performance.eventLoopUtilization(loopBefore);
  loopDelay.disable();
  const failed = rows.filter((r) => r.status !== 'completed').length;
  const start = Math.min(...rows.map((r) => r.admittedAt!.getTime()));
  const end = Math.max(...rows.map((r) => r.completedAt!.getTime()));
  const busy = busySlotTime(rows.map((r) => ({ start: r.admittedAt!.getTime(), end: r.completedAt!.getTime() })), start, end);
  const utilization = slotUtilization(busy, slots, end - start);
  // Fairness while every owner is still backlogged: admissions per owner up to the first owner's last admission.
  const backloggedUntil = Math.min(...owners.map((o) => Math.max(...rows.filter((r) => r.ownerId === o.user.id).map((r) => r.admittedAt!.getTime()))));
  const admittedWhileBacklogged = owners.map((o) => rows.filter((r) => r.ownerId === o.user.id && r.admittedAt!.getTime() < backloggedUntil).length);
  const jobMs = rows.map((r) => r.completedAt!.getTime() - r.admittedAt!.getTime()).sort((a, b) => a - b);
  figures['jobs (utilization run)'] = `${rows.length} (${failed} failed)`;
  figures['wall time'] = `${end - start} ms for ${rows.length} jobs of /sleep ${SLEEP_MS} on ${slots} slots (ideal ${Math.round((rows.length * SLEEP_MS) / slots)} ms)`;
  figures['job duration p50 / p95'] = `${jobMs[Math.floor(jobMs.length / 2)]} / ${jobMs[Math.floor(jobMs.length * 0.95)]} ms`;
  figures['slot utilization (target ≥ 90 %)'] = `${(utilization * 100).toFixed(1)} %`;
  // Effective utilization: the model's own time (each job's /sleep) ÷ the slots' time over the run.
  figures['effective utilization, model time ÷ slot time (target ≥ 80 %)'] = `${(((rows.length * SLEEP_MS) / (slots * (end - start))) * 100).toFixed(1)} %`;
  figures['CPU per job (process CPU over the run ÷ jobs, sending included)'] = `${cpuPerJob.toFixed(1)} ms`;
  // The loop's busy time: JavaScript and everything it waits for synchronously (SQLite's work, the fsyncs under FULL).
  figures['event loop busy per job / loop utilization (sending included)'] = `${(loop.active / ids.length).toFixed(1)} ms / ${(loop.utilization * 100).toFixed(1)} %`;
  const delayMs = (p: number) => (loopDelay.percentile(p) / 1e6).toFixed(1);
  figures['event loop delay p50 / p99 / max (a callback waiting for the loop)'] = `${delayMs(50)} / ${delayMs(99)} / ${(loopDelay.max / 1e6).toFixed(1)} ms`;
  const writes = writerStats();
  if (writes && writesBefore) {
    const per = (k: 'transactions' | 'commits') => ((writes[k] - writesBefore[k]) / ids.length).toFixed(1);
    figures['app database per job: write transactions / COMMITs (group commit)'] = `${per('transactions')} / ${per('commits')}`;
  }
  const steps = await checkpointStats();
  if (steps && stepsBefore) {
    const per = (k: 'unsynced' | 'fsyncs') => ((steps[k] - stepsBefore[k]) / ids.length).toFixed(1);
    figures['checkpoint file per job: step commits / shared fsyncs (ADR 035)'] = `${per('unsynced')} / ${per('fsyncs')}`;
  }
  // Where a job's slot time goes, from the rows' own times (mean per job): the launch step, the run's start (its
  // row marked running, the assembly recorded), the run less the model's own sleep (graph steps, checkpoints, the
  // run's end), the finalize step. Each segment ends with a durable commit that waits for its turn on the loop.
  const runTimes = await statement(
    `select j.id, r.created_at as "createdAt", r.started_at as "startedAt", r.finished_at as "finishedAt" from jobs j join runs r on r.id = j.run_id where ${inList('j.id')}`,
  ).all<{ id: string; createdAt: number; startedAt: number; finishedAt: number }>(ids);
  const runOf = new Map(runTimes.map((run) => [run.id, run]));
  const segments = { launch: 0, start: 0, run: 0, finalize: 0 };
  for (const r of rows) {
    const run = runOf.get(r.id)!;
    segments.launch += run.createdAt - r.admittedAt!.getTime();
    segments.start += run.startedAt - run.createdAt;
    segments.run += run.finishedAt - run.startedAt - SLEEP_MS;
    segments.finalize += r.completedAt!.getTime() - run.finishedAt;
  }
  const mean = (ms: number) => (ms / rows.length).toFixed(1);
  const overhead = segments.launch + segments.start + segments.run + segments.finalize;
  figures["a job's slot time, mean: admitted → launched / → started / run less the model / → completed + model"] =
    `${mean(segments.launch)} / ${mean(segments.start)} / ${mean(segments.run)} / ${mean(segments.finalize)} ms + ${SLEEP_MS} ms = ${(overhead / rows.length + SLEEP_MS).toFixed(1)} ms`;
  // Where idle slot-time comes from: the time from each completion to the next admission.
  const admissions = rows.map((r) => r.admittedAt!.getTime()).sort((a, b) => a - b);
  const gaps = rows
    .map((r) => r.completedAt!.getTime())
    .map((c) => (admissions.find((a) => a >= c) ?? c) - c)
    .sort((a, b) => a - b);
  figures['completion → next admission p50 / p95'] = `${gaps[Math.floor(gaps.length / 2)]} / ${gaps[Math.floor(gaps.length * 0.95)]} ms`;
  figures['fairness, Jain over owners while backlogged (target ≥ 0.99)'] = `${jainIndex(admittedWhileBacklogged).toFixed(4)}  (admissions: ${admittedWhileBacklogged.join(', ')})`;

  // ── 2. Flooding owner vs light owner ──
  const heavy = await benchOwner('heavy', 5);
  const light = await benchOwner('light', 3);
  const heavyIds = await send(heavy, 500, 'flood');
  await new Promise((r) => setTimeout(r, 200)); // let the flood occupy every slot first
  const sentAt = Date.now();
  const lightIds = await send(light, 5, 'light');
  const lightRows = await waitAll(lightIds, 300_000);
  const waits = lightRows.map((r) => r.admittedAt!.getTime() - r.createdAt.getTime());
  // When the light owner's requests share a conversation, each can only be admitted after the previous one finished.
  const byConversation = new Map<string, typeof lightRows>();
  for (const r of lightRows) byConversation.set(r.conversationId, [...(byConversation.get(r.conversationId) ?? []), r]);
  const admissibleWaits = lightRows.map((r) => {
    const earlier = (byConversation.get(r.conversationId) ?? []).filter((x) => x.seq < r.seq);
    const admissibleAt = Math.max(r.createdAt.getTime(), ...earlier.map((x) => x.completedAt!.getTime()));
    return r.admittedAt!.getTime() - admissibleAt;
  });
  await waitAll(heavyIds, 600_000);
  figures['light owner: worst wait from send'] = `${Math.max(...waits)} ms (job duration ≈ ${jobMs[Math.floor(jobMs.length / 2)]} ms; sent ${lightRows.length} requests to ${byConversation.size} members at ${sentAt - start} ms)`;
  figures['light owner: worst wait from becoming admissible (target ≤ one job duration)'] = `${Math.max(...admissibleWaits)} ms`;

  }
  ensureScheduler();

  // ── 4. A flood of long jobs vs a newcomer ──
  if (selected(4)) {
  // A: the flooder (10 conversations) floods long jobs while another owner keeps short jobs going; the flooder is
  // held at 6 slots, and a newcomer's short job is timed from send to admission, 20 times over.
  const cap = LIMITS.scheduler.maxSlotsPerOwnerWhenShared;
  const flooder = await benchOwner('flooder', 5);
  const steady = await benchOwner('steady', 2);
  const newcomer = await benchOwner('newcomer', 1);
  const floodIds = await send(flooder, 24, 'long', LONG_MS);
  const steadyIds = await send(steady, 150, 'short', SHORT_MS);
  await until(async () => (await heldBy(flooder.user.id)) >= cap, 30_000, 'the flood taking its slots');
  let flooderMaxHeld = 0;
  const sampler = setInterval(() => {
    // A sample that fails (the database closing at the end) only loses that sample.
    void heldBy(flooder.user.id)
      .then((n) => (flooderMaxHeld = Math.max(flooderMaxHeld, n)))
      .catch(() => {});
  }, 10);
  const newcomerWaits: number[] = [];
  const newcomerIds: string[] = [];
  for (let i = 0; i < 20; i++) {
    const { id, waitMs } = await newcomerWait(newcomer, `newcomer-${i}`);
    newcomerWaits.push(waitMs);
    newcomerIds.push(id);
    await waitAll([id], 60_000);
    await wait((i * 37) % 150); // arrive at varied points of the other jobs' progress
  }
  clearInterval(sampler);
  const shortRows = await waitAll(steadyIds, 300_000);
  const shortMs = shortRows.map((r) => r.completedAt!.getTime() - r.admittedAt!.getTime()).sort((a, b) => a - b);
  await waitAll(floodIds, 300_000);
  newcomerWaits.sort((a, b) => a - b);
  figures['flood vs newcomer: short job duration p50 (admission → completion)'] = `${pct(shortMs, 0.5)} ms (/sleep ${SHORT_MS}; long jobs /sleep ${LONG_MS})`;
  figures['flood vs newcomer, another owner active: newcomer wait p50 / p99 / max (target ≤ one short job)'] =
    `${pct(newcomerWaits, 0.5)} / ${pct(newcomerWaits, 0.99)} / ${newcomerWaits[newcomerWaits.length - 1]} ms over ${newcomerWaits.length} arrivals`;
  figures['flood vs newcomer: most slots the flooder held meanwhile (cap)'] = `${flooderMaxHeld} of ${slots} (cap ${cap})`;

  // B: the other owners just left (inside the grace window; the newcomer's last job ends right before the solo
  // flood): the flooder alone is still held at 6, so a newcomer gets a free slot at once. Then, past the grace window, it may fill all 8 (work-conserving), and a newcomer
  // must wait for a long job to end: the price of never preempting.
  const graceMs = LIMITS.scheduler.sharedGraceMs;
  await waitAll([(await newcomerWait(newcomer, 'present')).id], 60_000);
  const soloIds = await send(flooder, 16, 'solo', LONG_MS);
  await until(async () => (await heldBy(flooder.user.id)) >= cap, 30_000, 'the solo flood taking its slots');
  const heldInGrace = await heldBy(flooder.user.id);
  const inGrace = await newcomerWait(newcomer, 'in-grace');
  const [inGraceRow] = await waitAll([inGrace.id], 60_000);
  await until(async () => (await heldBy(flooder.user.id)) === slots, graceMs + 2 * LONG_MS + 10_000, 'the flooder filling every slot past the grace window');
  const filledAfter = Date.now() - inGraceRow!.completedAt!.getTime();
  const pastGrace = await newcomerWait(newcomer, 'past-grace');
  await waitAll([...soloIds, inGrace.id, pastGrace.id, ...newcomerIds], 300_000);
  figures['flooder alone, others left < grace ago: slots it holds / newcomer wait'] = `${heldInGrace} of ${slots} / ${inGrace.waitMs} ms`;
  figures['flooder alone past the grace window: all slots taken after the last other job / newcomer wait'] =
    `${filledAfter} ms (grace ${graceMs} ms) / ${pastGrace.waitMs} ms (≤ one long job, ${LONG_MS} ms: no preemption)`;

  }

  // ── 5. What synchronous=FULL costs ──
  // A SQLite setting: on Postgres there is nothing to compare.
  if (selected(5) && databaseEngine() === 'sqlite') {
  // Per commit: one small write transaction, the shape of an admission. End to end: 200 jobs of /sleep 0.
  const { getCheckpointer } = await import('@/server/agents/checkpointer');
  const { activeEngine } = await import('@/server/db/active-engine');
  const syncOwners = [await benchOwner('sync0', 5), await benchOwner('sync1', 5)];
  const probeJob = (await send(syncOwners[0]!, 1, 'probe', 0))[0]!;
  await waitAll([probeJob], 60_000);
  const touchJob = statement('update jobs set updated_at = ? where id = ?');
  const commitMs = async () => {
    const n = 300;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await writeTx(() => touchJob.run(new Date(), probeJob));
    return (performance.now() - t0) / n;
  };
  const JOBS = 100;
  const throughput = async (tag: string) => {
    const t0 = Date.now();
    const ids: string[] = [];
    for (const [i, o] of syncOwners.entries()) ids.push(...(await send(o, JOBS / syncOwners.length, `${tag}-${i}`, 0)));
    await waitAll(ids, 600_000);
    return JOBS / ((Date.now() - t0) / 1000);
  };
  const setSynchronous = (mode: 'FULL' | 'NORMAL') => {
    // The pragma is the writer connection's (commits are made there), set outside any transaction: the driver
    // itself, which only this SQLite-only measurement reaches for.
    const engine = activeEngine();
    // eslint-disable-next-line no-restricted-syntax -- the SQLite writer's own setting (see above)
    if (engine.kind === 'sqlite') engine.sqlite.writer.$client.pragma(`synchronous = ${mode}`);
    const checkpointer = getCheckpointer();
    if (checkpointer.engine === 'sqlite') checkpointer.db.pragma(`synchronous = ${mode}`);
  };
  const syncFigures: Record<string, { commit: number; jobsPerSecond: number }> = {};
  for (const [run, mode] of (['FULL', 'NORMAL', 'FULL', 'NORMAL'] as const).entries()) {
    setSynchronous(mode);
    const commit = await commitMs();
    const jobsPerSecond = await throughput(`sync-${run}-${mode}`);
    const best = syncFigures[mode];
    // The better of two runs each: other processes on the machine only ever slow a run down.
    syncFigures[mode] = { commit: Math.min(best?.commit ?? Infinity, commit), jobsPerSecond: Math.max(best?.jobsPerSecond ?? 0, jobsPerSecond) };
  }
  setSynchronous('FULL');
  const full = syncFigures.FULL!;
  const normal = syncFigures.NORMAL!;
  figures['per commit (best of 2), synchronous=FULL / NORMAL'] = `${full.commit.toFixed(3)} / ${normal.commit.toFixed(3)} ms`;
  figures[`jobs/s (/sleep 0, ${JOBS} jobs, best of 2), FULL / NORMAL`] =
    `${full.jobsPerSecond.toFixed(1)} / ${normal.jobsPerSecond.toFixed(1)} (FULL costs ${((1 - full.jobsPerSecond / normal.jobsPerSecond) * 100).toFixed(1)} %)`;
  }
  // ── 6. CPU per job vs conversation length ──
  if (selected(6)) {
  // Eight conversations (four teams × two members), 5 jobs of /sleep 0 each measured at ~10 messages and at ~500,
  // in rounds (below). CPU = this process's CPU over the measured jobs ÷ their count. A throwaway set of
  // conversations goes through the same steps first, so the figures compare warm code.
  const { readThread } = await import('@/server/agents/thread');
  const { startRun, wait: waitRun } = await import('@/server/agents/runs');
  const { personMessage } = await import('@/server/agents/provenance');
  type LengthSet = { o: Awaited<ReturnType<typeof benchOwner>>; conversations: Array<{ teamId: string; memberId: string; conversationId: string }> };
  const lengthSet = async (label: string): Promise<LengthSet> => {
    const o = await benchOwner(label, 4);
    return { o, conversations: o.teams.flatMap((t) => t.members.map((m) => ({ teamId: t.id, memberId: m.id, conversationId: m.conversationId! }))) };
  };
  let seq = 0;
  const sendEach = async ({ o, conversations }: LengthSet, perConversation: number) => {
    const ids: string[] = [];
    for (const c of conversations) {
      for (let i = 0; i < perConversation; i++) {
        const tag = `len-${seq++}`;
        ids.push((await sendRequest(o.user.id, c.teamId, { memberIds: [c.memberId], text: `/sleep 0\n/reply ${tag}`, draftKey: tag })).jobs[0]!.id);
      }
    }
    return ids;
  };
  const lengthOf = async ({ conversations }: LengthSet) =>
    Math.min(...(await Promise.all(conversations.map(async (c) => (await readThread(c.conversationId)).messages.length))));
  // Grown with direct runs on the members' conversations (a team takes 100 requests in all), each adding 14
  // messages: the request, six calculator calls with their results, the answer.
  const growTo = async (set: LengthSet, messages: number) => {
    for (;;) {
      const now = await lengthOf(set);
      if (now >= messages) return now;
      await Promise.all(
        set.conversations.map(async (c) => {
          const tag = `grow-${seq++}`;
          const calls = Array.from({ length: 6 }, (_, i) => `/call calculator {"expression":"${seq} * ${i + 2}"}`);
          // The owner's own words (the scripted model acts only on a person's directives).
          const meta = { author: 'person', provenance: personMessage() };
          const { run } = await startRun(c.conversationId, { text: [...calls, `/reply ${tag}`].join('\n'), meta }, { idempotencyKey: tag });
          await waitRun(run.id, 60_000);
        }),
      );
    }
  };
  const PER = 5;
  const ROUNDS = Number(process.env.BENCH_LENGTH_ROUNDS) || 5;
  const measure = async (set: LengthSet, messages: number) => {
    await growTo(set, messages);
    // One unmeasured job each first: a conversation's first job does once-only work (its team's first step).
    await waitAll(await sendEach(set, 1), 600_000, 250);
    const at = await lengthOf(set);
    const t0 = cpuMs();
    const measured = await waitAll(await sendEach(set, PER), 600_000, 250);
    return { at, perJob: (cpuMs() - t0) / measured.length };
  };
  const warm = await lengthSet('length-warm-up');
  await measure(warm, 10);
  await measure(warm, 100);
  // Several rounds, short and long alternating (and which goes first alternating too), so that a GC or another
  // process's burst lands on both sides: one 40-job pair swung the ratio from 0.8 to 1.8 on the same code. Each
  // round measures a fresh short set (measuring grows a conversation by 12 messages); the long set is grown once
  // and grows by 12 messages a round.
  const long = await lengthSet('length-long');
  await growTo(long, 500);
  const shortRuns: Array<{ at: number; perJob: number }> = [];
  const longRuns: Array<{ at: number; perJob: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const short = await lengthSet(`length-short-${round}`);
    if (round % 2 === 0) {
      shortRuns.push(await measure(short, 10));
      longRuns.push(await measure(long, 500));
    } else {
      longRuns.push(await measure(long, 500));
      shortRuns.push(await measure(short, 10));
    }
  }
  const median = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const shortMs = median(shortRuns.map((r) => r.perJob));
  const longMs = median(longRuns.map((r) => r.perJob));
  const ratios = shortRuns.map((s, i) => longRuns[i]!.perJob / s.perJob).sort((a, b) => a - b);
  const sample = `${ROUNDS} rounds × ${long.conversations.length} conversations × ${PER} jobs of /sleep 0`;
  figures['CPU per job, conversation of ~10 messages'] = `${shortMs.toFixed(1)} ms, median of ${ROUNDS} (${shortRuns.map((r) => r.perJob.toFixed(1)).join(', ')}; ${shortRuns[0]!.at} messages when measured; ${sample})`;
  figures['CPU per job, conversation of ~500 messages'] = `${longMs.toFixed(1)} ms, median of ${ROUNDS} (${longRuns.map((r) => r.perJob.toFixed(1)).join(', ')}; ${longRuns[0]!.at}–${longRuns.at(-1)!.at} messages)`;
  figures['ratio 500 ÷ 10 (target ≤ 1.5)'] = `${(longMs / shortMs).toFixed(2)} (ratio of the medians; per round ${ratios[0]!.toFixed(2)}–${ratios.at(-1)!.toFixed(2)})`;
  }
  await stopScheduler();

  // ── 7. A job's CPU by phase ──
  if (selected(7)) {
  // One job at a time, each step taken by hand as the scheduler would (no scheduler, no other work): where a job's
  // CPU goes. The run's phase is the graph (launch returns once it has started; it ends with the run's finish event).
  const { admitJob, launchJob, finalizeJob } = await import('@/server/teams/execution');
  const { wait: waitRun } = await import('@/server/agents/runs');
  const phases = { send: 0, admit: 0, launch: 0, run: 0, finalize: 0 };
  const timed = async <T>(phase: keyof typeof phases, step: () => Promise<T>): Promise<T> => {
    const before = cpuMs();
    const result = await step();
    phases[phase] += cpuMs() - before;
    return result;
  };
  const WARM = 20;
  const MEASURED = 200;
  let solo = await benchOwner('phases', 1);
  for (let i = 0; i < WARM + MEASURED; i++) {
    if (i === WARM) for (const k of Object.keys(phases) as Array<keyof typeof phases>) phases[k] = 0;
    // A new team (of a new owner) before this one reaches its request limit.
    if (i % 90 === 89) solo = await benchOwner(`phases${i}`, 1);
    const [id] = await timed('send', () => send(solo, 1, `p${i}`, 0));
    await timed('admit', () => admitJob(id!));
    await timed('launch', () => launchJob(id!));
    await timed('run', async () => waitRun((await jobRow(id!)).runId!, 30_000));
    await timed('finalize', () => finalizeJob(id!));
  }
  const perJob = (ms: number) => (ms / MEASURED).toFixed(1);
  const total = Object.values(phases).reduce((a, b) => a + b, 0);
  figures["a job's CPU by phase, one at a time: send / admit / launch / run / finalize"] =
    `${Object.values(phases).map(perJob).join(' / ')} ms = ${perJob(total)} ms (${MEASURED} jobs of /sleep 0, no scheduler)`;
  }

  // ── 3. Planning pass cost vs finished history ──
  if (selected(3)) {
  if (owners.length === 0) owners.push(await benchOwner('history', 5));
  // The best of several rounds: garbage collection and other processes only ever add time.
  const passMs = async (iterations: number) => {
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now();
      for (let i = 0; i < iterations / 5; i++) plan({ ...(await loadSchedulingView()), maxActive: slots, round: emptyRound() });
      best = Math.min(best, (performance.now() - t0) / (iterations / 5));
    }
    return best;
  };
  // A fresh database with the same pending shape, then the same plus 10,000 finished jobs.
  const [finishedNow] = await rows<{ n: number }>(sql`select count(*) as n from jobs where status in ('completed','failed','cancelled')`);
  await writeTx(async () => {
    await execute(sql`delete from jobs`);
    await execute(sql`update teams set has_pending = 0`);
  });
  const pendingOwner = await benchOwner('pending', 2);
  await send(pendingOwner, 40, 'pending'); // queued, never admitted (scheduler stopped)
  await passMs(200);
  const baseline = await passMs(5000);
  const insertFinished = statement(
    `insert into jobs (id, team_id, owner_id, kind, member_id, conversation_id, root_id, status, text, request_key, result, updated_at, created_at, completed_at)
     values (?, ?, ?, ?, ?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?)`,
  );
  const filler = owners.flatMap((o) => o.teams.map((t) => ({ o, t })));
  await writeTx(async () => {
    for (let i = 0; i < 10_000; i++) {
      const { o, t } = filler[i % filler.length]!;
      const id = crypto.randomUUID();
      const now = new Date();
      await insertFinished.run(id, t.id, o.user.id, 'request', t.members[0]!.id, t.members[0]!.conversationId, id, `history ${i}`, `h-${i}`, 'x'.repeat(2000), now, now, now);
    }
  });
  await passMs(200);
  const withHistory = await passMs(5000);
  figures['planning pass, no finished jobs'] = `${(baseline * 1000).toFixed(1)} µs (${Number(finishedNow!.n)} finished jobs were cleared first)`;
  figures['planning pass, 10,000 finished jobs'] = `${(withHistory * 1000).toFixed(1)} µs`;
  figures['ratio (target ≤ 1.2)'] = (withHistory / baseline).toFixed(3);

  // touchTeam runs ~4 times per job: on a team full of finished work (its request and receipt limits reached) it must
  // cost what it costs on a new one. Many calls in one transaction, so the COMMIT's fsync doesn't hide the statements.
  const { touchTeam } = await import('@/server/teams/revision');
  const touchUs = async (teamId: string, jobId: string) => {
    let best = Infinity;
    for (let round = 0; round < 5; round++) {
      const t0 = performance.now();
      await writeTx(async (tx) => {
        for (let i = 0; i < 200; i++) await touchTeam(tx, teamId, [jobId]);
      });
      best = Math.min(best, ((performance.now() - t0) * 1000) / 200);
    }
    return best;
  };
  const fullOwner = await benchOwner('full', 1);
  const full = fullOwner.teams[0]!;
  const fullMember = full.members[0]!;
  const fullJobs = LIMITS.team.requests + LIMITS.team.receipts;
  await writeTx(async () => {
    for (let i = 0; i < fullJobs; i++) {
      const id = crypto.randomUUID();
      const now = new Date();
      const kind = i < LIMITS.team.requests ? 'request' : 'receipt';
      await insertFinished.run(id, full.id, fullOwner.user.id, kind, fullMember.id, fullMember.conversationId, id, `full ${i}`, `f-${i}`, 'x'.repeat(200), now, now, now);
    }
  });
  const [fullJob] = await rows<{ id: string }>(sql`select id from jobs where team_id = ${full.id} limit 1`);
  const [newJob] = await rows<{ id: string; teamId: string }>(sql`select id, team_id as "teamId" from jobs where owner_id = ${pendingOwner.user.id} limit 1`);
  await touchUs(newJob!.teamId, newJob!.id);
  const touchNew = await touchUs(newJob!.teamId, newJob!.id);
  const touchFull = await touchUs(full.id, fullJob!.id);
  figures[`touchTeam on a team of 20 jobs / a full team (${fullJobs} finished)`] = `${touchNew.toFixed(1)} / ${touchFull.toFixed(1)} µs (ratio ${(touchFull / touchNew).toFixed(2)})`;
  }

  void scheduler;
  closeCheckpointer();
  await closeDb();
  if (process.env.BENCH_KEEP) console.log(`data directory kept: ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(`\nScheduler benchmark (scripted model, one process, ${databaseEngine() === 'sqlite' ? 'SQLite WAL' : 'Postgres'})\n`);
  const width = Math.max(...Object.keys(figures).map((k) => k.length));
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(width)}  ${v}`);
}

main().catch((err) => {
  console.error(err);
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});
