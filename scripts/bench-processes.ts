/**
 * Jobs per second with 1, 2 and 3 app processes on one Postgres database (npm run bench:processes; issue 13, "A
 * cheaper job"): measures, never asserts. Needs a Postgres server: DATABASE_URL names a database to connect to as
 * an administrator (default postgres://postgres@127.0.0.1:5432/test); the benchmark only creates and drops
 * databases of its own (ensemble_bench_*).
 *
 * Seeds one template database (scripts/bench/processes-seed.ts: owners × teams, BENCH_JOBS requests of `/sleep`
 * queued), then for each process count K copies it to a fresh database, starts K worker processes
 * (scripts/bench/processes-worker.ts: cluster, push bridge, scheduler with the slot limit raised to BENCH_MAX_ACTIVE),
 * lets them run every job and prints, per K: wall time (go → last completion), jobs/s and its ratio to one process,
 * the workers' CPU per job and the CPU of the database's Postgres backends per job, latency p50/p99, the slot
 * holding time, mean slots in use and effective utilization, and how busy the whole machine was meanwhile.
 *
 * Settings: BENCH_JOBS (400), BENCH_PROCESSES (1,2,3), BENCH_OWNERS (10), BENCH_TEAMS_PER_OWNER (8),
 * BENCH_SLEEP_MS (50), BENCH_MAX_ACTIVE (64), BENCH_TICK_MS (500, the app's), BENCH_TIMEOUT_MS (600000 per K).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { BackendCpu, machineBusyMs } from './bench/cpu-sampling';
import { ForkedWorker } from './bench/forked-worker';
import { runFigures, type JobTimes, type RunFigures } from './bench/processes-figures';
import type { WorkerReport } from './bench/processes-protocol';

const setting = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const JOBS = setting('BENCH_JOBS', 400);
const OWNERS = setting('BENCH_OWNERS', 10);
const TEAMS_PER_OWNER = setting('BENCH_TEAMS_PER_OWNER', 8);
const SLEEP_MS = setting('BENCH_SLEEP_MS', 50);
const MAX_ACTIVE = setting('BENCH_MAX_ACTIVE', 64);
const TIMEOUT_MS = setting('BENCH_TIMEOUT_MS', 600_000);
/** No job settled for this long: the run is stalled (a job stuck); it ends there and its figures say so. */
const STALL_MS = setting('BENCH_STALL_MS', 60_000);
const PROCESS_COUNTS = (process.env.BENCH_PROCESSES ?? '1,2,3').split(',').map((k) => Number(k.trim()));
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** Start-up (imports, migrations check, first beat) under load can take a while; the run itself has TIMEOUT_MS. */
const STEP_TIMEOUT_MS = 120_000;
const POLL_MS = 250;

// Lower-case letters, digits and underscores: names that need no quoting rules.
const prefix = `ensemble_bench_${Date.now().toString(36)}_${crypto.randomBytes(3).toString('hex')}`;
const tmpDirs: string[] = [];
const children = new Set<ForkedWorker>();
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const urlOf = (database: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function childEnv(database: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ensemble-bench-processes-'));
  tmpDirs.push(dataDir);
  // Each process keeps its own data directory (checkpoints.db), as compose.yaml runs them.
  return { ...process.env, DATABASE_URL: urlOf(database), DATA_DIR: dataDir, SCRYPT_LOG_N: '10', ...extra };
}

function start(file: string, env: NodeJS.ProcessEnv): ForkedWorker {
  const worker = new ForkedWorker(path.join(__dirname, 'bench', file), env);
  children.add(worker);
  void worker.exited.then(() => children.delete(worker));
  return worker;
}

async function seedTemplate(database: string): Promise<void> {
  await asAdmin((client) => client.query(`create database "${database}"`));
  const seeder = start('processes-seed.ts', childEnv(database));
  const code = await seeder.end(TIMEOUT_MS);
  if (code !== 0) throw new Error(`seeding failed (exit ${code})`);
}

type RunResult = {
  processes: number;
  figures: RunFigures;
  /** Of the workers still running at the end (one that stopped itself reports nothing). */
  reports: WorkerReport[];
  heldAtJoin: number[];
  stoppedEarly: number;
  /** Why jobs failed, with their counts. */
  failureReasons: string[];
  postgresCpuMs: number;
  machineBusyCores?: number;
};

async function run(processes: number, template: string): Promise<RunResult> {
  const database = `${prefix}_k${processes}`;
  await asAdmin((client) => client.query(`create database "${database}" template "${template}"`));
  const db = new pg.Client({ connectionString: urlOf(database) });
  await db.connect();
  try {
    const ids = Array.from({ length: processes }, () => crypto.randomUUID());
    const workers = ids.map((id) => start('processes-worker.ts', childEnv(database, { BENCH_PROCESS_ID: id, BENCH_MAX_ACTIVE: String(MAX_ACTIVE) })));
    await Promise.all(workers.map((w) => w.next('loaded', STEP_TIMEOUT_MS)));
    // Every process registered before any joins: each first beat counts them all and claims its share of teams.
    for (const [i, id] of ids.entries()) {
      await db.query(`insert into app_processes (id, pid, host, started_at, heartbeat_at) values ($1, $2, $3, now(), now())`, [id, workers[i]!.child.pid, os.hostname()]);
    }
    const heldAtJoin: number[] = [];
    for (const worker of workers) {
      worker.send({ type: 'join' });
      heldAtJoin.push((await worker.next('joined', STEP_TIMEOUT_MS)).heldTeams);
    }

    const total = Number((await db.query<{ n: string }>('select count(*) as n from jobs')).rows[0]!.n);
    const backends = new BackendCpu(db, database);
    await backends.start();
    const machineBefore = machineBusyMs();
    const goAt = Date.now();
    for (const worker of workers) worker.send({ type: 'go' });
    await Promise.all(workers.filter((w) => w.alive).map((w) => w.next('started', STEP_TIMEOUT_MS)));

    const deadline = goAt + TIMEOUT_MS;
    let settled = 0;
    let progressAt = Date.now();
    for (;;) {
      const { rows } = await db.query<{ n: string }>(`select count(*) as n from jobs where status in ('completed','failed','cancelled')`);
      await backends.sample();
      const now = Number(rows[0]!.n);
      if (now >= total) break;
      if (now > settled) [settled, progressAt] = [now, Date.now()];
      // A worker that could not beat in time stops itself (its runs are taken over); with none left, nothing finishes.
      if (!workers.some((w) => w.alive)) throw new Error(`${processes} process(es): every worker stopped with ${now} of ${total} jobs settled`);
      if (Date.now() > deadline) throw new Error(`${processes} process(es): ${now} of ${total} jobs settled within ${TIMEOUT_MS} ms`);
      if (Date.now() - progressAt > STALL_MS) {
        const stuck = await db.query<{ id: string; status: string; run_status: string | null }>(
          `select j.id, j.status, r.status as run_status from jobs j left join runs r on r.id = j.run_id
            where j.status not in ('completed','failed','cancelled') limit 5`,
        );
        console.error(`[bench] ${processes} process(es): no job settled for ${STALL_MS} ms; stopping with ${total - now} unfinished, e.g. ${stuck.rows.map((r) => `${r.id} (job ${r.status}, run ${r.run_status ?? 'none'})`).join(', ')}`);
        break;
      }
      await wait(POLL_MS);
    }
    const machineAfter = machineBusyMs();
    const elapsedMs = Date.now() - goAt;

    const running = workers.filter((w) => w.alive);
    for (const worker of running) worker.send({ type: 'stop' });
    const reports = await Promise.all(running.map((w) => w.next('report', STEP_TIMEOUT_MS)));
    await Promise.all(workers.map((w) => w.end(30_000)));

    const { rows } = await db.query<{ status: string; created_at: Date; admitted_at: Date | null; completed_at: Date | null }>(
      'select status, created_at, admitted_at, completed_at from jobs',
    );
    const failures = await db.query<{ error: string | null; n: string }>(`select error, count(*) as n from jobs where status in ('failed','cancelled') group by error`);
    const jobs: JobTimes[] = rows.map((r) => ({ status: r.status, createdAt: r.created_at, admittedAt: r.admitted_at, completedAt: r.completed_at }));
    return {
      processes,
      figures: runFigures(jobs, goAt, SLEEP_MS),
      reports,
      heldAtJoin,
      stoppedEarly: processes - running.length,
      failureReasons: failures.rows.map((r) => `${r.n} × ${r.error ?? '(no error recorded)'}`),
      postgresCpuMs: backends.totalMs(),
      machineBusyCores: machineBefore === undefined || machineAfter === undefined ? undefined : (machineAfter - machineBefore) / elapsedMs,
    };
  } finally {
    await db.end();
    await asAdmin((client) => client.query(`drop database if exists "${database}" with (force)`));
  }
}

function print(results: RunResult[], seedMs: number, loadBefore: number[]): void {
  const base = results.find((r) => r.processes === 1)?.figures.jobsPerSecond;
  const ms = (n: number) => n.toFixed(1);
  const header = ['processes', 'jobs (failed, unfinished)', 'wall s', 'jobs/s', '÷ 1 process', 'worker CPU/job ms', 'Postgres CPU/job ms', 'latency p50 / p99 ms', 'slot held p50 / p99 ms', 'mean slots in use', 'effective utilization', 'machine busy cores', 'admissions per process', 'teams claimed at join', 'slowest beat hook ms', 'workers stopped early'];
  const lines = results.map(({ processes, figures: f, reports, heldAtJoin, stoppedEarly, postgresCpuMs, machineBusyCores }) => {
    const completed = f.jobs - f.failed;
    const workerCpu = reports.reduce((sum, r) => sum + r.cpuMs, 0);
    return [
      String(processes),
      `${f.jobs} (${f.failed}, ${f.unfinished})`,
      (f.wallMs / 1000).toFixed(1),
      f.jobsPerSecond.toFixed(1),
      base ? (f.jobsPerSecond / base).toFixed(2) : '—',
      // A worker that stopped early took its CPU figure with it: marked, not silently low.
      `${ms(workerCpu / completed)}${stoppedEarly > 0 ? ' (partial)' : ''}`,
      ms(postgresCpuMs / completed),
      `${f.latency.p50} / ${f.latency.p99}`,
      `${f.service.p50} / ${f.service.p99}`,
      f.meanSlotsInUse.toFixed(1),
      `${(f.effectiveUtilization * 100).toFixed(1)} %`,
      machineBusyCores === undefined ? '—' : machineBusyCores.toFixed(2),
      reports.map((r) => r.admissions).join(' / '),
      heldAtJoin.join(' / '),
      String(Math.round(Math.max(...reports.map((r) => r.slowestHookMs)))),
      String(stoppedEarly),
    ];
  });
  console.log(
    `\nJobs per second with several app processes on one Postgres database (scripted model): ${JOBS} jobs of /sleep ${SLEEP_MS}, ` +
      `${OWNERS} owners × ${TEAMS_PER_OWNER} teams × 2 members, slot limit ${MAX_ACTIVE}, ${os.cpus().length} cores; ` +
      `seeding took ${(seedMs / 1000).toFixed(1)} s; load average before ${loadBefore.map((l) => l.toFixed(2)).join(', ')}, after ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}\n`,
  );
  console.log(`| ${header.join(' | ')} |`);
  console.log(`|${header.map(() => '---').join('|')}|`);
  for (const line of lines) console.log(`| ${line.join(' | ')} |`);
  console.log(
    '\nwall: go → last completion. latency: completion − max(creation, go). slot held: admission → completion. mean slots in use: Σ slot held ÷ wall.\n' +
      'effective utilization: model time (jobs × sleep) ÷ Σ slot held = model time ÷ (wall × mean slots in use). worker CPU: the workers\'\n' +
      "process.cpuUsage() from go to the last completion; Postgres CPU: the benchmark database's backends (/proc), background processes excluded.\n" +
      'machine busy cores: every process on the machine over the run (others included), from /proc/stat.',
  );
  for (const { processes, failureReasons } of results) {
    for (const reason of failureReasons) console.log(`failed jobs, ${processes} process(es): ${reason}`);
  }
}

async function cleanUp(): Promise<void> {
  for (const child of children) child.child.kill('SIGKILL');
  await asAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${prefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
  });
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
}

/** Databases of runs killed before their clean-up, started over six hours ago (the start time is in the name). */
async function dropStaleDatabases(): Promise<void> {
  await asAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(`select datname from pg_database where datname like 'ensemble_bench_%'`);
    for (const { datname } of rows) {
      const started = parseInt(/^ensemble_bench_([0-9a-z]+)_/.exec(datname)?.[1] ?? '', 36);
      if (Number.isFinite(started) && Date.now() - started > 6 * 3600_000) await client.query(`drop database if exists "${datname}" with (force)`);
    }
  });
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg();
  await dropStaleDatabases();
  const template = `${prefix}_seed`;
  const seedStart = Date.now();
  await seedTemplate(template);
  const seedMs = Date.now() - seedStart;
  const results: RunResult[] = [];
  const failures: string[] = [];
  for (const processes of PROCESS_COUNTS) {
    // One process count failing (every worker fenced, a timeout) is a finding: the others still run and print.
    try {
      const result = await run(processes, template);
      console.log(`[bench] ${processes} process(es): ${result.figures.jobsPerSecond.toFixed(1)} jobs/s`);
      results.push(result);
    } catch (error) {
      failures.push(`${processes} process(es): ${(error as Error).message}`);
      for (const child of children) child.child.kill('SIGKILL');
    }
  }
  print(results, seedMs, loadBefore);
  for (const failure of failures) console.log(`not measured: ${failure}`);
  if (failures.length > 0) process.exitCode = 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(1));
  });
}

main()
  .then(cleanUp)
  .catch(async (error: unknown) => {
    console.error(error);
    await cleanUp();
    process.exitCode = 1;
  });
