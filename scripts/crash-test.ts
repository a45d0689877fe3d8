/**
 * npm run test:crash — kill the real server with SIGKILL at random moments under a mixed team workload and check
 * that nothing acknowledged is lost, nothing runs twice, every handoff gets exactly one receipt, nothing is stuck
 * and owner fairness held (scripts/crash/fairness.ts).
 *
 *   --processes N      N servers on one database (Postgres only; default 1): each request goes to a random live one,
 *                      the killer kills one at a time and restarts it after a random delay while the others serve
 *   --db sqlite|postgres  the engine (default sqlite); postgres creates ensemble_crash_<seed> on 127.0.0.1:5432
 *                      (CRASH_PG_URL: another server) and drops it at the end unless CRASH_KEEP=1
 *                      (CRASH_PROCESSES / CRASH_DB: the same as environment variables)
 *   CRASH_SIZE=short   3 kills, 60 requests (CI; about a minute after the build)
 *   CRASH_SIZE=full    12 kills, 216 requests (default)
 *   CRASH_SEED=N       replay the same workload plan (the kill moments stay random)
 *   CRASH_BATCHES=N    durable batches a third owner starts during the workload (default: short 4 of 14 items, full 5
 *                      of 40; at most LIMITS.batch.livePerOwner; 0: none)
 *   NEXT_DIST_DIR      the build to start (default .next-crash; built when missing or older than the sources)
 *   CRASH_SKIP_BUILD=1 use an existing build even if it looks stale
 *   CRASH_KEEP=1       keep the temporary data directories, server logs (and the Postgres database)
 *
 * Starts `next start` itself, each process on a temporary data directory of its own, and exits non-zero on any
 * violation. With several processes it is also their supervisor: one that stops itself because its beat came late
 * while it held work (ADR 044 §7; a loaded machine does this without any kill) is started again, and its stop counts
 * as a restart; any other exit the harness did not cause is a violation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LIMITS } from '@/lib/limits';
import { batchFacts, planBatches, startBatches, unfinishedBatches, verifyBatches, type BatchAck, type PlannedBatch } from './crash/batches';
import { Cluster, type Node } from './crash/cluster';
import type { Facts } from './crash/facts';
import { checkFairness } from './crash/fairness';
import { describePhases, handovers, parseTakeovers, phasesOf, type Kill, type Phases } from './crash/handover';
import { parseOptions, type CrashOptions } from './crash/options';
import { pgFacts } from './crash/pg-facts';
import { createCrashDatabase, lastBeats, leasesOf, NoPostgresError, type CrashDatabase } from './crash/postgres';
import { createOwner, ensureBuild, freePort, ServerProcess, type Exit } from './crash/server';
import { sqliteFacts } from './crash/sqlite-facts';
import { verify, type Restart } from './crash/verify';
import { api, between, expected, isRetryable, planRequests, rng, ROLE_INSTRUCTIONS, roleFor, type Ack, type Owner, type PlannedRequest, type Role, type Team } from './crash/workload';

const SIZES = {
  short: { requests: 60, kills: 3, gapMs: [1_500, 3_500], spreadMs: 8_000, quiesceMs: 60_000, batches: 4, batchItems: 14 },
  full: { requests: 216, kills: 12, gapMs: [1_500, 5_000], spreadMs: 40_000, quiesceMs: 180_000, batches: 5, batchItems: 40 },
} as const;
/** With several processes, a killed one comes back after this long: sometimes before its leases expire (LIMITS.cluster.leaseMs, 5 s), sometimes after. */
const RESTART_DELAY_MS = [500, 12_000] as const;
/** Issue 31's bound on kill → first progress of the killed process's teams; reported (a timing, not a verdict). */
const HANDOVER_BOUND_MS = 15_000;
const TEAMS_PER_OWNER = 3;
/** Even, so every member has a teammate of each role (workload.ts roleFor). */
const MEMBERS_PER_TEAM = 4;

const options = ((): CrashOptions => {
  try {
    return parseOptions(process.argv.slice(2), process.env);
  } catch (err) {
    console.error(`Crash test: ${(err as Error).message}`);
    process.exit(2);
  }
})();
const sizeName = process.env.CRASH_SIZE === 'short' ? 'short' : 'full';
const size = SIZES[sizeName];
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 1e9));
const random = rng(seed);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What the killer did, for the verdict and the summary. */
type KillLog = { restarts: Restart[]; kills: Kill[]; graceful?: { process: number; exit: Exit | null; ms: number } };

/** SIGKILL one process; restart it at once (one process) or after a random delay while the others serve. */
async function killOne(cluster: Cluster, node: Node, log: KillLog, databaseUrl: string | undefined): Promise<void> {
  node.up = false; // no new request goes to it, nor another kill
  const { processId, teams } = databaseUrl ? await leasesOf(databaseUrl, node.server.child.pid!) : { processId: null, teams: null };
  const killedAt = Date.now();
  await node.kill();
  if (cluster.nodes.length > 1) await sleep(between(random, RESTART_DELAY_MS[0], RESTART_DELAY_MS[1]));
  const healthyAt = await node.start();
  log.restarts.push({ killedAt, spawnedAt: node.server.startedAt });
  log.kills.push({ process: node.index, killedAt, healthyAt, teams, processId });
}

/**
 * The killer: `size.kills` SIGKILLs of a random live process at random moments (never the last live one), and once,
 * mid-workload, a graceful restart (SIGTERM must exit 143 and leave the runs for the next start).
 */
async function killer(cluster: Cluster, log: KillLog, databaseUrl: string | undefined, acknowledged: () => string, violations: string[]): Promise<void> {
  // Restarts run while the killer goes on; a failed one is kept (not left unhandled) and thrown at the end.
  const restarting: Promise<unknown>[] = [];
  for (let k = 0; k < size.kills; k++) {
    await sleep(between(random, size.gapMs[0], size.gapMs[1]));
    await cluster.atLeast(Math.min(2, cluster.nodes.length));
    const live = cluster.live();
    const node = live[between(random, 0, live.length - 1)]!;
    const done = killOne(cluster, node, log, databaseUrl).then(() => {
      process.stdout.write(`  kill ${k + 1}/${size.kills} (process ${node.index}): healthy again in ${secs(node.healthMs.at(-1)!)}; ${acknowledged()}\n`);
    });
    if (cluster.nodes.length === 1) await done;
    else restarting.push(done.then(() => null, (err: unknown) => err ?? new Error('a restart failed')));
    if (k === Math.floor(size.kills / 2)) {
      await sleep(between(random, size.gapMs[0], size.gapMs[1]));
      await cluster.atLeast(Math.min(2, cluster.nodes.length));
      const target = cluster.live()[0]!;
      const stoppedAt = Date.now();
      const { exit, ms } = await target.stop();
      await target.start();
      log.restarts.push({ killedAt: stoppedAt, spawnedAt: target.server.startedAt });
      log.graceful = { process: target.index, exit, ms };
      process.stdout.write(`  graceful restart (process ${target.index}): SIGTERM → exit ${exit?.code ?? 'none'} in ${secs(ms)}; healthy again in ${secs(target.healthMs.at(-1)!)}\n`);
      if (exit?.code !== 143) violations.push(`SIGTERM mid-workload: process ${target.index} exited with ${JSON.stringify(exit)}, expected code 143`);
    }
  }
  const failed = (await Promise.all(restarting)).find((outcome) => outcome !== null);
  if (failed) throw failed;
}

type Stats = { retriedSends: number; foundRecorded: number; refused: string[]; retriedAnswers: number; answersFoundRecorded: number };

/** Send every planned request; a send whose response never arrived is retried with the same draft key (on any live process). */
async function produce(cluster: Cluster, owners: Owner[], plan: PlannedRequest[], acks: Map<number, Ack>, stats: Stats): Promise<void> {
  let next = 0;
  const pace = size.spreadMs / plan.length;
  const worker = async () => {
    while (next < plan.length) {
      const planned = plan[next++]!;
      await sleep(between(random, 0, 2 * pace * 4));
      const token = owners[planned.team.ownerIndex]!.token;
      for (let attempt = 1; ; attempt++) {
        const node = await cluster.any();
        try {
          const { status, body } = await api<{ jobs: Array<{ id: string }> }>(node.baseUrl, token, 'POST', `/api/v1/teams/${planned.team.id}/requests`, {
            memberIds: [planned.member.id],
            text: planned.text,
            draftKey: planned.draftKey,
          });
          acks.set(planned.index, { jobId: body.jobs[0]!.id, created: status === 201, attempts: attempt });
          if (attempt > 1) stats.retriedSends += 1;
          if (attempt > 1 && status === 200) stats.foundRecorded += 1;
          break;
        } catch (err) {
          if (!isRetryable(err) || attempt >= 30) {
            stats.refused.push(`request ${planned.index}: ${(err as Error).message}`);
            break;
          }
          await sleep(100);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** Answer every clarification the members ask; an answer whose response was lost is retried with its key. */
async function answerQuestions(cluster: Cluster, owners: Owner[], teams: Team[], answers: Map<string, string>, stats: Stats, done: () => boolean): Promise<void> {
  const unacknowledged = new Map<string, { team: Team; body: { answer: string; answerKey: string } }>();
  const respond = async (jobId: string, team: Team, body: { answer: string; answerKey: string }, retry: boolean) => {
    try {
      const node = await cluster.any();
      const res = await api<{ job: { status: string } }>(node.baseUrl, owners[team.ownerIndex]!.token, 'POST', `/api/v1/teams/${team.id}/jobs/${jobId}/respond`, body);
      answers.set(jobId, body.answerKey);
      unacknowledged.delete(jobId);
      if (retry) {
        stats.retriedAnswers += 1;
        if (res.body.job.status !== 'resuming') stats.answersFoundRecorded += 1;
      }
    } catch (err) {
      if (!isRetryable(err)) stats.refused.push(`answer to ${jobId}: ${(err as Error).message}`);
      else unacknowledged.set(jobId, { team, body });
    }
  };
  while (!done()) {
    try {
      for (const [jobId, { team, body }] of unacknowledged) await respond(jobId, team, body, true);
      for (const [ownerIndex, owner] of owners.entries()) {
        const node = await cluster.any();
        const { body } = await api<{ teams: Array<{ id: string; waitingJobs: number }> }>(node.baseUrl, owner.token, 'GET', '/api/v1/teams');
        for (const summary of body.teams.filter((t) => t.waitingJobs > 0)) {
          const team = teams.find((t) => t.id === summary.id && t.ownerIndex === ownerIndex)!;
          const activity = await api<{ jobs?: Array<{ id: string; status: string; text?: string; waiting?: { type: string; questionId?: string } | null }> }>(
            (await cluster.any()).baseUrl,
            owner.token,
            'GET',
            `/api/v1/teams/${team.id}/activity?details=1&limit=200`,
          );
          for (const job of activity.body.jobs ?? []) {
            if (job.status !== 'waiting_input' || job.waiting?.type !== 'clarification' || unacknowledged.has(job.id)) continue;
            const index = Number(/request (\d+)\?/.exec(job.text ?? '')?.[1]);
            await respond(job.id, team, { answer: expected.answer(index), answerKey: `answer-${job.id}-${job.waiting.questionId}` }, false);
          }
        }
      }
    } catch (err) {
      if (!isRetryable(err)) stats.refused.push(`polling: ${(err as Error).message}`);
    }
    await sleep(300);
  }
}

/** Bounded wait until no team has unfinished work and no batch is running (answering questions meanwhile). */
async function quiesce(cluster: Cluster, owners: Owner[], batchOwner: Owner, batches: PlannedBatch[], batchAcks: Map<number, BatchAck>): Promise<number> {
  const deadline = Date.now() + size.quiesceMs;
  let pending = Infinity;
  while (Date.now() < deadline) {
    try {
      pending = 0;
      for (const owner of owners) {
        const node = await cluster.any();
        const { body } = await api<{ teams: Array<{ pendingJobs: number; waitingJobs: number }> }>(node.baseUrl, owner.token, 'GET', '/api/v1/teams');
        pending += body.teams.reduce((n, t) => n + t.pendingJobs + t.waitingJobs, 0);
      }
      pending += await unfinishedBatches(cluster, batchOwner, batches, batchAcks);
      if (pending === 0) return 0;
    } catch (err) {
      if (!isRetryable(err)) throw err;
    }
    await sleep(250);
  }
  return pending;
}

async function setUp(cluster: Cluster, owners: Owner[]): Promise<Team[]> {
  const teams: Team[] = [];
  const baseUrl = () => cluster.nodes[0]!.baseUrl;
  for (const [ownerIndex, owner] of owners.entries()) {
    const agentIds: string[] = [];
    const roles = new Map<string, Role>();
    for (let k = 0; k < MEMBERS_PER_TEAM; k++) {
      const name = `Crash ${ownerIndex + 1}-${k + 1}`;
      const role = roleFor(k);
      const { body } = await api<{ id: string }>(baseUrl(), owner.token, 'POST', '/api/v1/agents', { name, model: 'scripted', instructions: ROLE_INSTRUCTIONS[role] });
      agentIds.push(body.id);
      roles.set(name, role);
    }
    for (let t = 0; t < TEAMS_PER_OWNER; t++) {
      const { body } = await api<{ id: string; status: string; members: Array<{ id: string; name: string; conversationId: string }> }>(
        baseUrl(),
        owner.token,
        'POST',
        '/api/v1/teams',
        { requestId: `crash-team-${t}`, name: `Crash team ${ownerIndex + 1}.${t + 1}`, goal: 'Survive repeated SIGKILLs', agentIds },
      );
      if (body.status !== 'ready') throw new Error(`team ${body.id} is ${body.status}`);
      const members = body.members.map((m) => {
        const role = roles.get(m.name);
        if (!role) throw new Error(`team member ${m.name} is not one of the agents just created`);
        return { ...m, role };
      });
      teams.push({ id: body.id, ownerIndex, members });
    }
  }
  return teams;
}

/** A second server on the same data directory must refuse to start, name the lock and exit non-zero (SQLite). */
async function secondServerRefused(env: NodeJS.ProcessEnv, logFile: string): Promise<string | null> {
  const second = new ServerProcess(await freePort(), env, logFile);
  const timeout = sleep(60_000).then(() => null);
  const exit = (await Promise.race([second.exited, timeout])) as Exit | null;
  if (!exit) {
    await second.kill('SIGKILL');
    return 'a second server on the same data directory kept running';
  }
  if (exit.code === 0 || exit.code === null) return `a second server exited with ${JSON.stringify(exit)}`;
  if (!second.output.includes('could not take the service lock')) return `a second server exited without naming the lock:\n${second.output.slice(-1_000)}`;
  return null;
}

function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const spread = (values: number[]) => (values.length ? `p50 ${secs(percentile(values, 50))}, max ${secs(Math.max(...values))}` : 'none measured');

async function main(): Promise<number> {
  const started = Date.now();
  const distDir = process.env.NEXT_DIST_DIR || '.next-crash';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-crash-'));
  const postgres = options.db === 'postgres';
  const dataDirs = postgres ? Array.from({ length: options.processes }, (_, i) => path.join(scratch, `data-${i}`)) : [path.join(scratch, 'data')];
  const logFile = (i: number) => path.join(scratch, options.processes > 1 ? `server-${i}.log` : 'server.log');
  const cluster = new Cluster(random);
  let database: CrashDatabase | undefined;
  const onSignal = () => {
    for (const node of cluster.nodes) if (node.server?.running) node.server.child.kill('SIGKILL');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const violations: string[] = [];
  try {
    if (postgres) database = await createCrashDatabase(seed);
    ensureBuild(distDir, scratch);
    const workStarted = Date.now();
    // One secret for all: a session or token made by one process is valid on every other.
    const shared: NodeJS.ProcessEnv = {
      ...process.env,
      NEXT_DIST_DIR: distDir,
      AUTH_SECRET: crypto.randomBytes(32).toString('base64url'),
      SCRYPT_LOG_N: '10',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    if (!database) delete shared.DATABASE_URL;
    const envs: NodeJS.ProcessEnv[] = [];
    for (const dataDir of dataDirs) {
      const port = await freePort();
      envs.push({ ...shared, DATA_DIR: dataDir, PORT: String(port) });
      cluster.add(port, envs.at(-1)!, logFile(envs.length - 1));
    }
    const where = database ? `Postgres database ${database.name}, data directories in ${scratch}` : `data in ${dataDirs[0]}`;
    console.log(`Crash test (${sizeName}, seed ${seed}, ${options.processes} process${options.processes > 1 ? 'es' : ''}, ${options.db}): ${size.requests} requests, ${size.kills} SIGKILLs, ${where}`);
    const owners = [createOwner(envs[0]!, 'owner-one@crash.test', 'crash-test-password-1'), createOwner(envs[0]!, 'owner-two@crash.test', 'crash-test-password-2')];
    // The batches' owner (./crash/batches.ts): no team work of its own, so its items run beside the teams' jobs.
    const batchOwner = createOwner(envs[0]!, 'owner-batches@crash.test', 'crash-test-password-3');

    await Promise.all(cluster.nodes.map((node) => node.start()));
    const refusal = postgres ? null : await secondServerRefused(envs[0]!, logFile(0));
    if (refusal) violations.push(refusal);

    const teams = await setUp(cluster, owners);
    const plan = planRequests(size.requests, teams, random);
    // Durable batches (ADR 059) started while the requests come and the killer kills: items are admitted, launched
    // and finished across the kills.
    const { body: batchAgent } = await api<{ id: string }>(cluster.nodes[0]!.baseUrl, batchOwner.token, 'POST', '/api/v1/agents', { name: 'Crash batches', model: 'scripted', instructions: '/sleep 30' });
    const batchCount = Math.min(process.env.CRASH_BATCHES ? Number(process.env.CRASH_BATCHES) : size.batches, LIMITS.batch.livePerOwner);
    const batchPlan = planBatches(batchCount, size.batchItems, batchAgent.id, random);
    const batchAcks = new Map<number, BatchAck>();
    const acks = new Map<number, Ack>();
    const answers = new Map<string, string>();
    const stats: Stats = { retriedSends: 0, foundRecorded: 0, refused: [], retriedAnswers: 0, answersFoundRecorded: 0 };
    const log: KillLog = { restarts: [], kills: [] };
    let finished = false;

    const killing = killer(cluster, log, database?.url, () => `${acks.size}/${plan.length} requests acknowledged`, violations);
    const answerer = answerQuestions(cluster, owners, teams, answers, stats, () => finished);
    await Promise.all([produce(cluster, owners, plan, acks, stats), startBatches(cluster, batchOwner, batchPlan, batchAcks, stats.refused, size.spreadMs / 2, random), killing]);
    const stillPending = await quiesce(cluster, owners, batchOwner, batchPlan, batchAcks);
    finished = true;
    await answerer;

    const stops = await Promise.all(cluster.nodes.map((node) => node.stop()));
    for (const [i, { exit }] of stops.entries()) {
      if (!exit) violations.push(`process ${i} did not exit within 30 s of SIGTERM`);
      else if (exit.code !== 143) violations.push(`SIGTERM: process ${i} exited with ${JSON.stringify(exit)}, expected code 143`);
    }
    // A fenced stop (a late beat while holding work) is designed, and the harness started the process again as a
    // supervisor would: a restart like a kill's for the verdict. Any other exit the harness did not cause is a fault.
    for (const own of cluster.nodes.flatMap((node) => node.ownExits)) {
      if (!own.fenced) violations.push(`process ${own.process} exited on its own with ${JSON.stringify(own.exit)}, not a fenced stop`);
      else if (own.restartError) violations.push(`process ${own.process} stopped itself (fenced) and did not start again: ${own.restartError}`);
      else if (own.restartedAt) log.restarts.push({ killedAt: own.at, spawnedAt: own.restartedAt });
    }

    // Read before the facts: the stopped processes' rows are still there (a row goes an hour after its last beat).
    const beats = database ? await lastBeats(database.url) : new Map<string, number>();
    const facts: Facts = database ? await pgFacts(database.url, dataDirs) : sqliteFacts(dataDirs[0]!);
    let verdict;
    try {
      verdict = await verify(facts, plan, acks, answers, log.restarts);
    } finally {
      await facts.close();
    }
    const batchVerdict = verifyBatches(batchPlan, batchAcks, await batchFacts(database ? { url: database.url } : { dataDir: dataDirs[0]! }), log.restarts.map((r) => r.killedAt));
    const fairness = checkFairness(facts.jobs, facts.runs, { maxActive: LIMITS.scheduler.maxActiveJobs, perOwnerWhenShared: LIMITS.scheduler.maxSlotsPerOwnerWhenShared });
    const handed = handovers(log.kills, facts.jobs, facts.runs);
    const serverLogs = cluster.nodes.map((n) => (fs.existsSync(n.logFile) ? fs.readFileSync(n.logFile, 'utf8') : ''));
    const takeovers = parseTakeovers(serverLogs);
    // A late beat: a process that held nothing went on under a new id, one that held something stopped (ADR 044 §7).
    const lateBeats = (pattern: RegExp) => serverLogs.reduce((n, text) => n + (text.match(pattern)?.length ?? 0), 0);
    const rejoined = lateBeats(/^\[cluster\] .* goes on as \S+ \(was \S+\)$/gm);
    const selfStopped = lateBeats(/^\[ensemble\] stopping now: /gm);
    const phases = handed.map((h) => phasesOf(h, facts.runs, takeovers, beats, LIMITS.cluster.leaseMs, log.kills));
    const healthAfterRestart = cluster.nodes.flatMap((n) => n.healthMs.slice(1));
    const byStatus = Object.entries(verdict.jobs.byStatus).map(([s, n]) => `${n} ${s}`).join(', ');
    const ownerName = new Map(owners.map((o, i) => [o.userId, `owner ${i + 1}`]));
    const graceful = log.graceful;
    console.log('');
    console.log(`Crash test ${sizeName} (seed ${seed}, ${options.processes} process${options.processes > 1 ? 'es' : ''}, ${options.db})`);
    console.log(
      `  kills:        ${cluster.kills} SIGKILLs, each followed by a restart` +
        (options.processes > 1 ? ` (per process: ${cluster.nodes.map((n) => `${n.index}: ${n.kills}`).join(', ')})` : '') +
        `; 1 graceful restart (SIGTERM → exit ${graceful?.exit?.code ?? 'none'} in ${secs(graceful?.ms ?? NaN)})`,
    );
    console.log(`  requests:     ${plan.length} planned, ${acks.size} acknowledged; ${stats.retriedSends} resent after a lost response (${stats.foundRecorded} of them already recorded)`);
    console.log(`  answers:      ${answers.size} acknowledged; ${stats.retriedAnswers} resent after a lost response (${stats.answersFoundRecorded} already recorded)`);
    console.log(`  jobs:         ${verdict.jobs.total} (${verdict.jobs.requests} from the person, ${verdict.jobs.handoffs} handoffs, ${verdict.jobs.receipts} receipts): ${byStatus}`);
    console.log(`  runs:         ${verdict.runs}`);
    console.log(`  lost:         ${verdict.lost.length}`);
    console.log(`  duplicated:   ${verdict.duplicated.length}`);
    console.log(`  stuck:        ${verdict.stuck.length}${stillPending ? ` (${stillPending} unfinished when the quiescence wait ended)` : ''}`);
    console.log(`  wrong result: ${verdict.wrong.length}`);
    const bf = batchVerdict.figures;
    const released = lateBeats(/^\[batches\] released \d+ unlaunched item/gm);
    console.log(
      `  batches:      ${bf.batches}/${batchPlan.length} acknowledged and stored, ${bf.items} items: ${bf.done} done, ${bf.failed} failed (planned failures spend their budget); ` +
        `attempts ${Object.entries(bf.attempts).map(([a, n]) => `${a}: ${n}`).join(', ')}; ${bf.runs} item runs; ${bf.killsMidBatch} of ${log.restarts.length} kills/restarts cut ${bf.runsCut} item runs mid-way; ` +
        `${bf.expiredLeases} leases expired; ${released} release(s) of a dead process's unlaunched items; ` +
        `lost ${batchVerdict.lost.length}, duplicated ${batchVerdict.duplicated.length}, stuck ${batchVerdict.stuck.length}, wrong ${batchVerdict.wrong.length}`,
    );
    console.log(`  receipts:     ${verdict.receipts.length} mismatches`);
    console.log(
      `  fairness:     ${fairness.violations.length ? 'VIOLATED' : 'held'}: at most ${fairness.maxInFlight} job runs in flight (cap ${LIMITS.scheduler.maxActiveJobs}); ` +
        `at most ${fairness.maxOwnerWhileShared} for one owner while another had one (shared cap ${LIMITS.scheduler.maxSlotsPerOwnerWhenShared}; ${fairness.admissionsChecked} admissions checked); ` +
        `runs ${Object.entries(fairness.runsPerOwner).map(([owner, n]) => `${ownerName.get(owner) ?? owner} ${n}`).sort().join(', ')}`,
    );
    console.log(`  recovery:     restart → health ${spread(healthAfterRestart)}; restart → first progress ${spread(verdict.firstProgressMs)} (${verdict.firstProgressMs.length} restarts with work pending)`);
    const perProcess = cluster.nodes
      .map((n) => ({ n, ms: handed.filter((h) => h.process === n.index).map((h) => h.ms) }))
      .map(({ n, ms }) => `${n.index}: ${ms.length ? spread(ms) : 'none measured'}`);
    console.log(
      `  handover:     kill → first progress of its teams ${spread(handed.map((h) => h.ms))} (${handed.length} kills with work pending` +
        (options.processes > 1 ? `, ${handed.filter((h) => h.byAnother).length} known to be by another process); per process ${perProcess.join('; ')}` : ')'),
    );
    if (options.processes > 1 && phases.length) {
      // Where the handover's time went (ms relative to the kill), p50 and max of each phase over the kills.
      const phase = (label: string, pick: (p: Phases) => number | null) => {
        const values = phases.map(pick).filter((v): v is number => v != null);
        return `${label} ${values.length ? spread(values) : 'none'}`;
      };
      console.log(
        `  phases:       after the kill: ${phase('lease out', (p) => p.leaseOut)}; ${phase('first run taken', (p) => p.firstRunTaken)}; ` +
          `${phase('first team taken', (p) => p.firstTeamTaken)}; lease out → first takeover ${spread(phases.flatMap((p) => (p.leaseOut != null && (p.firstRunTaken ?? p.firstTeamTaken) != null ? [Math.min(p.firstRunTaken ?? Infinity, p.firstTeamTaken ?? Infinity) - p.leaseOut] : [])))}; ` +
          `first progress's run taken → finished ${spread(phases.flatMap((p) => (p.progressRunTaken != null ? [p.progress - p.progressRunTaken] : [])))}`,
      );
      for (const [i, h] of handed.entries()) console.log(`    kill at +${secs(h.kill.killedAt - workStarted)} (process ${h.process}): ${describePhases(phases[i]!)}`);
      // A handover whose run was interrupted again (the process executing it was killed before it finished)
      // waited for two handovers: told apart, never left out.
      const single = handed.filter((_, i) => phases[i]!.interruptedAt == null);
      const twice = handed.filter((_, i) => phases[i]!.interruptedAt != null);
      const over = single.filter((h) => h.ms > HANDOVER_BOUND_MS);
      console.log(
        `  bound:        kill → first progress ≤ ${secs(HANDOVER_BOUND_MS)} (issue 31): ` +
          (over.length ? `MISSED by ${over.length} of ${single.length} kills (${over.map((h) => secs(h.ms)).join(', ')})` : `held for all ${single.length} kills (max ${secs(Math.max(0, ...single.map((h) => h.ms)))})`) +
          (twice.length ? `; ${twice.length} more whose run's executor was killed too, before the run finished: ${twice.map((h) => secs(h.ms)).join(', ')}` : ''),
      );
    }
    if (options.processes > 1) console.log(`  late beats:   ${rejoined} rejoined under a new id holding nothing; ${selfStopped} stopped a process holding something (started again by the harness, as a supervisor would)`);
    console.log(
      `  shutdown:     final SIGTERM → exit ${stops.map((s) => s.exit?.code ?? 'none').join('/')} in ${stops.map((s) => secs(s.ms)).join('/')}; ` +
        (postgres ? 'second-server refusal: SQLite only' : `second server on the same data directory ${refusal ? 'NOT refused' : 'refused'}`),
    );
    console.log(`  duration:     ${secs(Date.now() - workStarted)} (plus ${secs(workStarted - started)} build check)`);

    for (const [label, list] of [
      ['refused', stats.refused],
      ['lost', verdict.lost],
      ['duplicated', verdict.duplicated],
      ['stuck', verdict.stuck],
      ['wrong', verdict.wrong],
      ['receipts', verdict.receipts],
      ['fairness', fairness.violations],
      ['batch lost', batchVerdict.lost],
      ['batch duplicated', batchVerdict.duplicated],
      ['batch stuck', batchVerdict.stuck],
      ['batch wrong', batchVerdict.wrong],
    ] as const) {
      for (const item of list) violations.push(`${label}: ${item}`);
    }
    if (cluster.kills < size.kills) violations.push(`only ${cluster.kills} of ${size.kills} kills happened`);
  } catch (err) {
    if (err instanceof NoPostgresError) {
      console.error(`Crash test: ${err.message}`);
      fs.rmSync(scratch, { recursive: true, force: true });
      return 1;
    }
    violations.push(`the crash test could not run: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    for (const node of cluster.nodes) if (node.server?.running) await node.server.kill('SIGKILL');
  }
  const keep = process.env.CRASH_KEEP === '1' || violations.length > 0;
  if (keep) console.log(`Kept ${scratch} (server logs, data directories)${database ? ` and the database ${database.name}` : ''}.`);
  else {
    fs.rmSync(scratch, { recursive: true, force: true });
    await database?.drop();
  }
  if (violations.length) {
    console.error(`\nFAILED: ${violations.length} violation(s)`);
    for (const v of violations.slice(0, 40)) console.error(`  - ${v}`);
    if (violations.length > 40) console.error(`  … and ${violations.length - 40} more`);
    return 1;
  }
  console.log('\nOK: zero lost, zero duplicated, zero stuck, owner fairness held.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
