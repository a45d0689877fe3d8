/**
 * npm run test:crash — kill the real server with SIGKILL at random moments under a mixed team workload and check
 * that nothing acknowledged is lost, nothing runs twice, every handoff gets exactly one receipt and nothing is stuck.
 *
 *   CRASH_SIZE=short   3 kills, 60 requests (CI; about a minute after the build)
 *   CRASH_SIZE=full    12 kills, 216 requests (default)
 *   CRASH_SEED=N       replay the same workload plan (the kill moments stay random)
 *   NEXT_DIST_DIR      the build to start (default .next-crash; built when missing or older than the sources)
 *   CRASH_SKIP_BUILD=1 use an existing build even if it looks stale
 *   CRASH_KEEP=1       keep the temporary data directory and server log
 *
 * Starts `next start` itself on a temporary data directory (one server at a time) and exits non-zero on any violation.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOwner, ensureBuild, freePort, ServerProcess, waitForHealth, type Exit } from './crash/server';
import { verify, type Restart } from './crash/verify';
import { api, between, expected, isRetryable, planRequests, rng, ROLE_INSTRUCTIONS, roleFor, type Ack, type Owner, type PlannedRequest, type Role, type Team } from './crash/workload';

const SIZES = {
  short: { requests: 60, kills: 3, gapMs: [1_500, 3_500], spreadMs: 8_000, quiesceMs: 60_000 },
  full: { requests: 216, kills: 12, gapMs: [1_500, 5_000], spreadMs: 40_000, quiesceMs: 180_000 },
} as const;
const TEAMS_PER_OWNER = 3;
/** Even, so every member has a teammate of each role (workload.ts roleFor). */
const MEMBERS_PER_TEAM = 4;

const sizeName = process.env.CRASH_SIZE === 'short' ? 'short' : 'full';
const size = SIZES[sizeName];
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 1e9));
const random = rng(seed);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The one server, its availability, and what the killer did to it. */
class Control {
  server!: ServerProcess;
  baseUrl = '';
  private up = false;
  private waiters: Array<() => void> = [];
  readonly restarts: Restart[] = [];
  readonly healthMs: number[] = [];
  kills = 0;

  constructor(
    private readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {
    this.baseUrl = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    this.server = new ServerProcess(this.port, this.env, this.logFile);
    const healthyAt = await waitForHealth(this.baseUrl, this.server);
    this.healthMs.push(healthyAt - this.server.startedAt);
    this.up = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  async killAndRestart(): Promise<void> {
    this.up = false;
    const killedAt = Date.now();
    const exit = await this.server.kill('SIGKILL');
    if (exit.signal !== 'SIGKILL') throw new Error(`the server had already exited (${JSON.stringify(exit)}):\n${this.server.output.slice(-2_000)}`);
    this.kills += 1;
    await this.start();
    this.restarts.push({ killedAt, spawnedAt: this.server.startedAt });
  }

  /** A graceful restart with work in flight: SIGTERM must exit 143 and leave the runs for the next start. */
  async stopAndRestart(): Promise<{ exit: Exit | null; ms: number }> {
    this.up = false;
    const stoppedAt = Date.now();
    const exit = (await Promise.race([this.server.kill('SIGTERM'), sleep(30_000).then(() => null)])) as Exit | null;
    const ms = Date.now() - stoppedAt;
    if (!exit) await this.server.kill('SIGKILL');
    await this.start();
    this.restarts.push({ killedAt: stoppedAt, spawnedAt: this.server.startedAt });
    return { exit, ms };
  }

  whenUp(): Promise<void> {
    return this.up ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

type Stats = { retriedSends: number; foundRecorded: number; refused: string[]; retriedAnswers: number; answersFoundRecorded: number };

/** Send every planned request; a send whose response never arrived is retried with the same draft key. */
async function produce(ctl: Control, owners: Owner[], plan: PlannedRequest[], acks: Map<number, Ack>, stats: Stats): Promise<void> {
  let next = 0;
  const pace = size.spreadMs / plan.length;
  const worker = async () => {
    while (next < plan.length) {
      const planned = plan[next++]!;
      await sleep(between(random, 0, 2 * pace * 4));
      const token = owners[planned.team.ownerIndex]!.token;
      for (let attempt = 1; ; attempt++) {
        await ctl.whenUp();
        try {
          const { status, body } = await api<{ jobs: Array<{ id: string }> }>(ctl.baseUrl, token, 'POST', `/api/v1/teams/${planned.team.id}/requests`, {
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
async function answerQuestions(ctl: Control, owners: Owner[], teams: Team[], answers: Map<string, string>, stats: Stats, done: () => boolean): Promise<void> {
  const unacknowledged = new Map<string, { team: Team; body: { answer: string; answerKey: string } }>();
  const respond = async (jobId: string, team: Team, body: { answer: string; answerKey: string }, retry: boolean) => {
    try {
      const res = await api<{ job: { status: string } }>(ctl.baseUrl, owners[team.ownerIndex]!.token, 'POST', `/api/v1/teams/${team.id}/jobs/${jobId}/respond`, body);
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
    await ctl.whenUp();
    try {
      for (const [jobId, { team, body }] of unacknowledged) await respond(jobId, team, body, true);
      for (const [ownerIndex, owner] of owners.entries()) {
        const { body } = await api<{ teams: Array<{ id: string; waitingJobs: number }> }>(ctl.baseUrl, owner.token, 'GET', '/api/v1/teams');
        for (const summary of body.teams.filter((t) => t.waitingJobs > 0)) {
          const team = teams.find((t) => t.id === summary.id && t.ownerIndex === ownerIndex)!;
          const activity = await api<{ jobs?: Array<{ id: string; status: string; text?: string; waiting?: { type: string; questionId?: string } | null }> }>(
            ctl.baseUrl,
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

/** Bounded wait until no team has unfinished work (answering questions meanwhile). */
async function quiesce(ctl: Control, owners: Owner[]): Promise<number> {
  const deadline = Date.now() + size.quiesceMs;
  let pending = Infinity;
  while (Date.now() < deadline) {
    await ctl.whenUp();
    try {
      pending = 0;
      for (const owner of owners) {
        const { body } = await api<{ teams: Array<{ pendingJobs: number; waitingJobs: number }> }>(ctl.baseUrl, owner.token, 'GET', '/api/v1/teams');
        pending += body.teams.reduce((n, t) => n + t.pendingJobs + t.waitingJobs, 0);
      }
      if (pending === 0) return 0;
    } catch (err) {
      if (!isRetryable(err)) throw err;
    }
    await sleep(250);
  }
  return pending;
}

async function setUp(ctl: Control, owners: Owner[]): Promise<Team[]> {
  const teams: Team[] = [];
  for (const [ownerIndex, owner] of owners.entries()) {
    const agentIds: string[] = [];
    const roles = new Map<string, Role>();
    for (let k = 0; k < MEMBERS_PER_TEAM; k++) {
      const name = `Crash ${ownerIndex + 1}-${k + 1}`;
      const role = roleFor(k);
      const { body } = await api<{ id: string }>(ctl.baseUrl, owner.token, 'POST', '/api/v1/agents', { name, model: 'scripted', instructions: ROLE_INSTRUCTIONS[role] });
      agentIds.push(body.id);
      roles.set(name, role);
    }
    for (let t = 0; t < TEAMS_PER_OWNER; t++) {
      const { body } = await api<{ id: string; status: string; members: Array<{ id: string; name: string; conversationId: string }> }>(
        ctl.baseUrl,
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

/** A second server on the same data directory must refuse to start, name the lock and exit non-zero. */
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

async function main(): Promise<number> {
  const started = Date.now();
  const distDir = process.env.NEXT_DIST_DIR || '.next-crash';
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-crash-'));
  const dataDir = path.join(scratch, 'data');
  const logFile = path.join(scratch, 'server.log');
  let ctl: Control | undefined;
  const onSignal = () => {
    if (ctl?.server?.running) ctl.server.child.kill('SIGKILL');
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const violations: string[] = [];
  try {
    ensureBuild(distDir, scratch);
    const workStarted = Date.now();
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      NEXT_DIST_DIR: distDir,
      AUTH_SECRET: crypto.randomBytes(32).toString('base64url'),
      SCRYPT_LOG_N: '10',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(port),
    };
    console.log(`Crash test (${sizeName}, seed ${seed}): ${size.requests} requests, ${size.kills} SIGKILLs, data in ${dataDir}`);
    const owners = [createOwner(env, 'owner-one@crash.test', 'crash-test-password-1'), createOwner(env, 'owner-two@crash.test', 'crash-test-password-2')];

    ctl = new Control(port, env, logFile);
    await ctl.start();
    const refusal = await secondServerRefused(env, logFile);
    if (refusal) violations.push(refusal);

    const teams = await setUp(ctl, owners);
    const plan = planRequests(size.requests, teams, random);
    const acks = new Map<number, Ack>();
    const answers = new Map<string, string>();
    const stats: Stats = { retriedSends: 0, foundRecorded: 0, refused: [], retriedAnswers: 0, answersFoundRecorded: 0 };
    let finished = false;

    let graceful: { exit: Exit | null; ms: number } | undefined;
    const killer = (async () => {
      for (let k = 0; k < size.kills; k++) {
        await sleep(between(random, size.gapMs[0], size.gapMs[1]));
        await ctl!.killAndRestart();
        process.stdout.write(`  kill ${k + 1}/${size.kills}: healthy again in ${secs(ctl!.healthMs.at(-1)!)}; ${acks.size}/${plan.length} requests acknowledged\n`);
        if (k === Math.floor(size.kills / 2)) {
          // Once, mid-workload: a graceful restart must suspend the runs in flight, not cancel them.
          await sleep(between(random, size.gapMs[0], size.gapMs[1]));
          graceful = await ctl!.stopAndRestart();
          process.stdout.write(`  graceful restart: SIGTERM → exit ${graceful.exit?.code ?? 'none'} in ${secs(graceful.ms)}; healthy again in ${secs(ctl!.healthMs.at(-1)!)}\n`);
          if (graceful.exit?.code !== 143) violations.push(`SIGTERM mid-workload: the server exited with ${JSON.stringify(graceful.exit)}, expected code 143`);
        }
      }
    })();
    const answerer = answerQuestions(ctl, owners, teams, answers, stats, () => finished);
    await Promise.all([produce(ctl, owners, plan, acks, stats), killer]);
    const stillPending = await quiesce(ctl, owners);
    finished = true;
    await answerer;

    const stopStarted = Date.now();
    const stopTimer = sleep(30_000).then(() => null);
    ctl.server.child.kill('SIGTERM');
    const stopExit = (await Promise.race([ctl.server.exited, stopTimer])) as Exit | null;
    const stopMs = Date.now() - stopStarted;
    if (!stopExit) {
      violations.push('the server did not exit within 30 s of SIGTERM');
      await ctl.server.kill('SIGKILL');
    } else if (stopExit.code !== 143) {
      violations.push(`SIGTERM: the server exited with ${JSON.stringify(stopExit)}, expected code 143`);
    }

    const verdict = await verify(dataDir, plan, acks, answers, ctl.restarts);
    const healthAfterRestart = ctl.healthMs.slice(1);
    const byStatus = Object.entries(verdict.jobs.byStatus).map(([s, n]) => `${n} ${s}`).join(', ');
    console.log('');
    console.log(`Crash test ${sizeName} (seed ${seed})`);
    console.log(`  kills:        ${ctl.kills} SIGKILLs, each followed by a restart; 1 graceful restart (SIGTERM → exit ${graceful?.exit?.code ?? 'none'} in ${secs(graceful?.ms ?? NaN)})`);
    console.log(`  requests:     ${plan.length} planned, ${acks.size} acknowledged; ${stats.retriedSends} resent after a lost response (${stats.foundRecorded} of them already recorded)`);
    console.log(`  answers:      ${answers.size} acknowledged; ${stats.retriedAnswers} resent after a lost response (${stats.answersFoundRecorded} already recorded)`);
    console.log(`  jobs:         ${verdict.jobs.total} (${verdict.jobs.requests} from the person, ${verdict.jobs.handoffs} handoffs, ${verdict.jobs.receipts} receipts): ${byStatus}`);
    console.log(`  runs:         ${verdict.runs}`);
    console.log(`  lost:         ${verdict.lost.length}`);
    console.log(`  duplicated:   ${verdict.duplicated.length}`);
    console.log(`  stuck:        ${verdict.stuck.length}${stillPending ? ` (${stillPending} unfinished when the quiescence wait ended)` : ''}`);
    console.log(`  wrong result: ${verdict.wrong.length}`);
    console.log(`  receipts:     ${verdict.receipts.length} mismatches`);
    console.log(
      `  recovery:     restart → health p50 ${secs(percentile(healthAfterRestart, 50))}, max ${secs(Math.max(...healthAfterRestart))}; ` +
        `restart → first progress p50 ${secs(percentile(verdict.firstProgressMs, 50))}, max ${secs(Math.max(...verdict.firstProgressMs))} (${verdict.firstProgressMs.length} restarts with work pending)`,
    );
    console.log(`  shutdown:     final SIGTERM → exit ${stopExit?.code ?? 'none'} in ${secs(stopMs)}; second server on the same data directory ${refusal ? 'NOT refused' : 'refused'}`);
    console.log(`  duration:     ${secs(Date.now() - workStarted)} (plus ${secs(workStarted - started)} build check)`);

    for (const [label, list] of [
      ['refused', stats.refused],
      ['lost', verdict.lost],
      ['duplicated', verdict.duplicated],
      ['stuck', verdict.stuck],
      ['wrong', verdict.wrong],
      ['receipts', verdict.receipts],
    ] as const) {
      for (const item of list) violations.push(`${label}: ${item}`);
    }
    if (ctl.kills < size.kills) violations.push(`only ${ctl.kills} of ${size.kills} kills happened`);
  } catch (err) {
    violations.push(`the crash test could not run: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    if (ctl?.server?.running) await ctl.server.kill('SIGKILL');
    const keep = process.env.CRASH_KEEP === '1' || violations.length > 0;
    if (keep) console.log(`Kept ${scratch} (server.log, data/).`);
    else fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (violations.length) {
    console.error(`\nFAILED: ${violations.length} violation(s)`);
    for (const v of violations.slice(0, 40)) console.error(`  - ${v}`);
    if (violations.length > 40) console.error(`  … and ${violations.length - 40} more`);
    return 1;
  }
  console.log('\nOK: zero lost, zero duplicated, zero stuck.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
