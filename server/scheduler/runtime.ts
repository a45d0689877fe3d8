import 'server-only';
import { LIMITS } from '@/lib/limits';
import { runEvents, type RunEvent } from '@/server/agents/run-events';
import { isStopping } from '@/server/agents/runs';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '@/lib/types/conversation';
import { writeTx } from '@/server/db';
import { isRetryableConflict } from '@/server/db/errors';
import { statement } from '@/server/db/statement';
import { currentCluster, type Cluster } from '@/server/cluster/cluster';
import { runFenced } from '@/server/cluster/fence';
import type { BatchPort } from './batch-port';
import type { DelegationPort } from './delegation-port';
import type { JobPort } from './job-port';
import { emptyRound, plan, type RoundState } from './planner';
import { setSchedulerHandle } from './signal';
import { batchWorker, delegationWorker, loadSchedulingView, type RunningBatchItem, type RunningDelegation, type SchedulingCandidate } from './view';
import { TeamWorker, type Step } from './worker';

// Looked up on every run's end: compiled once per connection.
const jobOfRun = statement('select id, team_id as "teamId" from jobs where run_id = ?');
const childOfRun = statement('select id, parent_run_id as "parentRunId" from delegations where child_run_id = ?');
const openChildrenOf = statement(`select id from delegations where parent_run_id = ? and status in ('queued','running')`);
const teamOfJob = statement('select team_id as "teamId" from jobs where id = ?');
const processOfRun = statement('select process_id as p from runs where id = ?');
const itemOfRun = statement('select id, batch_id as "batchId" from batch_items where run_id = ?');

export type RuntimeOptions = {
  tickMs?: number;
  maxActive?: number;
  stepTimeoutMs?: number;
  /** Delegated children (the `task` tool), admitted through the same slots; absent: nothing delegated is admitted. */
  delegations?: DelegationPort;
  /** Durable batches' items (ADR 059), admitted through the same slots; absent: no batch item is admitted. */
  batches?: BatchPort;
  /** The other processes on the database (default: the process's own; SQLite: the one local process). */
  cluster?: Cluster;
};

/**
 * The process's scheduler: wakes on change and on a short tick, runs one planning pass at a time, admits
 * jobs owner-fairly, and hands each admitted job to its team's worker. Slots are counted from durable job
 * state, so a restart resumes the accounting where it stopped. What it does to a job goes through its port (the
 * team domain's implementation, handed in by start-up), so the scheduler never imports the team domain.
 */
export class SchedulerRuntime {
  private round: RoundState = emptyRound();
  private planning = false;
  /** The pass in progress (drain waits for it: a pass that has read the view may still admit and launch). */
  private passing: Promise<void> | undefined;
  /** Lookups that will queue a step when they settle (a run's end, a stop): drain waits for them too. */
  private readonly lookups = new Set<Promise<void>>();
  private again = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly workers = new Map<string, TeamWorker>();
  /** Jobs with a reconciliation or launch step queued or running in this process. */
  private readonly inFlight = new Set<string>();
  private readonly onRunFinished = (event: RunEvent) => this.runFinished(event);
  readonly tickMs: number;
  readonly maxActive: number;
  readonly stepTimeoutMs: number;
  private readonly delegations: DelegationPort | undefined;
  private readonly batches: BatchPort | undefined;
  private readonly cluster: Cluster;
  /** Counters for tests and benchmarks. */
  readonly stats = { passes: 0, admissions: 0 };

  constructor(
    private readonly jobs: JobPort,
    options: RuntimeOptions = {},
  ) {
    this.tickMs = options.tickMs ?? 500;
    this.maxActive = options.maxActive ?? LIMITS.scheduler.maxActiveJobs;
    this.stepTimeoutMs = options.stepTimeoutMs ?? LIMITS.scheduler.stepTimeoutMs;
    this.delegations = options.delegations;
    this.batches = options.batches;
    this.cluster = options.cluster ?? currentCluster();
  }

  /** The rotation as of the last pass: why-waiting.ts reads it to tell how many are ahead of a queued job. */
  get currentRound(): RoundState {
    return this.round;
  }

  start(): void {
    this.jobs.prepare();
    this.delegations?.prepare();
    this.batches?.prepare();
    runEvents().on('run:finished', this.onRunFinished);
    this.timer = setInterval(() => this.wake(), this.tickMs);
    this.timer.unref();
    setSchedulerHandle({ wake: () => this.wake(), stopJob: (id) => this.stopJob(id) });
    this.wake();
  }

  /**
   * Ask for a planning pass soon; passes never overlap (a wake during a pass runs one more after it). A pass is
   * asynchronous (it reads the view and admits through the database), and `planning` stays set until it has
   * settled, so two passes never interleave.
   */
  wake(): void {
    if (this.stopped) return;
    if (this.planning) {
      this.again = true;
      return;
    }
    this.planning = true;
    // A microtask, not a timer phase: under load the event loop turn can take tens of milliseconds, and a freed
    // slot should be refilled as soon as the step that freed it returns.
    queueMicrotask(() => {
      this.passing = this.planOnce();
    });
  }

  /** One pass, then the one a wake asked for meanwhile. Never rejects: a failed pass is logged, the next wake retries. */
  private async planOnce(): Promise<void> {
    try {
      await this.pass();
    } catch (err) {
      console.error('[scheduler] planning pass failed', err);
    } finally {
      this.planning = false;
      this.passing = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        this.wake();
      }
    }
  }

  /**
   * One planning pass: reconcile admitted jobs, then admit what capacity and fairness allow. Only one runs at a
   * time (wake); callers outside wake must not overlap it with another.
   */
  async pass(): Promise<void> {
    this.stats.passes += 1;
    // With several processes (Postgres), one pass at a time across all of them, over the round they share: slots,
    // the shared cap and the rotation are then counted exactly as in one process (ADR 033 §4).
    const elsewhere = await this.cluster.planningPass(async (stored) => {
      const round = this.cluster.shared ? ((stored as RoundState | null) ?? emptyRound()) : this.round;
      const result = await this.planAndAdmit(round);
      return { round: result?.round ?? round, value: result?.elsewhere ?? false };
    });
    // Work another process must launch (a team it holds, a child of a run it executes): tell it now.
    if (elsewhere) this.cluster.wakeOthers();
  }

  /** The next round, and whether work admitted here is another process's to launch; undefined when stopped. */
  private async planAndAdmit(round: RoundState): Promise<{ round: RoundState; elsewhere: boolean } | undefined> {
    const view = await loadSchedulingView();
    // Stopped while the view was read: admit nothing more.
    if (this.stopped) return undefined;
    // Reconcile admitted jobs, touching only those that need a step: a launch whose outcome is unknown (no run
    // recorded, e.g. after a crash), a finished run whose event was missed, or a cancel not yet carried out. Only the
    // teams this process holds: another process's teams are its own to step.
    for (const job of view.running) {
      if (this.inFlight.has(job.jobId) || !this.cluster.holds(job.teamId)) continue;
      if (job.status === 'cancelling') {
        // A run already told to stop finishes on its own; its run:finished event finalizes the job. Stepping it
        // again would only spin (a stop step that waits for nothing wakes another pass at once).
        if (!job.runId || !isStopping(job.runId)) this.step(job.teamId, job.jobId, 'stop', (signal) => this.jobs.stop(job.jobId, signal));
      }
      else if (!job.runId || !job.runStatus) this.launch(job.teamId, job.jobId);
      else if (!ACTIVE_RUN_STATUSES.includes(job.runStatus as RunStatus)) this.step(job.teamId, job.jobId, 'finalize', (signal) => this.jobs.finalize(job.jobId, signal));
    }
    this.reconcileDelegations(view.delegations);
    this.reconcileBatchItems(view.batchItems, view.unnotifiedBatches);
    const result = plan({
      queues: view.queues,
      activeCount: view.activeCount,
      maxActive: this.maxActive,
      round,
      busyConversations: view.busyConversations,
      heldSlots: view.heldSlots,
      maxPerOwnerWhenShared: LIMITS.scheduler.maxSlotsPerOwnerWhenShared,
      sharedGraceMs: LIMITS.scheduler.sharedGraceMs,
      now: Date.now(),
    });
    this.round = result.round;
    if (result.admissions.length === 0) return { round: result.round, elsewhere: false };
    // Every admission of the pass in one transaction (each a savepoint): one commit instead of one per admission, and
    // with several processes the planning lock is held for one queued transaction. What they start — launches — is
    // done once it has committed (a launch reads the job as admitted). Run again from the start if Postgres retries it,
    // so it does database work only: the teams' leases are claimed after the commit (below).
    const admitted = await writeTx(async () => {
      const launches: Array<() => void> = [];
      const jobs: Array<{ teamId: string; jobId: string }> = [];
      let count = 0;
      let elsewhere = false;
      for (const admission of result.admissions) {
        if (this.stopped) break;
        const candidate = admission.candidate;
        try {
          if (candidate.kind === 'item') {
            const port = this.batches;
            if (!port || !(await port.admitItem(candidate.itemId!))) continue;
            count += 1;
            // Launched by the process that admitted it: any process may, the run key and the lease fence make it once.
            launches.push(() => this.step(candidate.teamId, candidate.jobId, 'launch', (signal) => port.launchItem(candidate.itemId!, signal)));
            continue;
          }
          if (candidate.kind === 'child' || candidate.kind === 'parent') {
            const admittedHere = await this.admitDelegation(candidate);
            if (admittedHere === false) continue;
            count += 1;
            if (admittedHere === 'elsewhere') elsewhere = true;
            else if (admittedHere !== true) launches.push(admittedHere);
            continue;
          }
          if (!(await this.jobs.admit(admission.jobId))) continue;
        } catch (err) {
          // A conflict with another process's transaction: the whole pass's transaction runs again.
          if (isRetryableConflict(err)) throw err;
          // That admission's savepoint rolled back; the others stand, and the next pass tries it again.
          console.error(`[scheduler] admitting ${admission.jobId} failed`, err);
          continue;
        }
        count += 1;
        jobs.push({ teamId: candidate.teamId, jobId: admission.jobId });
      }
      return { launches, jobs, count, elsewhere };
    });
    this.stats.admissions += admitted.count;
    // The team's steps run where its lease is: ours (taken now if free), or another live process's. Claimed only for
    // committed admissions: a claim commits at once on the cluster's own connection, so inside the transaction it
    // would be taken at every attempt, and kept when the admission rolled back.
    let elsewhere = admitted.elsewhere;
    for (const { teamId, jobId } of admitted.jobs) {
      if (await this.cluster.claim(teamId)) admitted.launches.push(() => this.launch(teamId, jobId));
      else elsewhere = true;
    }
    for (const launch of admitted.launches) launch();
    return { round: result.round, elsewhere };
  }

  /**
   * A child takes a slot (its launch is returned, to start once the admission committed); a ready parent takes its
   * slot back (its waiting `task` calls return). false: not admitted; true: admitted, nothing to launch; 'elsewhere':
   * admitted, launched by the process executing its parent.
   */
  private async admitDelegation(candidate: SchedulingCandidate): Promise<boolean | 'elsewhere' | (() => void)> {
    const port = this.delegations;
    if (!port) return false;
    if (candidate.kind === 'parent') return port.readmitParent(candidate.runId!);
    const id = candidate.delegationId!;
    if (!(await port.admitChild(id))) return false;
    // A child is launched by the process executing its parent (its worker serializes the parent's children).
    if (!this.cluster.ownsRun(candidate.parentProcessId ?? null)) return 'elsewhere';
    return () => this.step(candidate.teamId, candidate.jobId, 'launch', (signal) => port.launchChild(id, signal));
  }

  /** Like jobs: launch what has no run, finalize what finished unrecorded, stop the children of a finished parent. */
  private reconcileDelegations(rows: readonly RunningDelegation[]): void {
    const port = this.delegations;
    if (!port) return;
    for (const row of rows) {
      const key = `d:${row.delegationId}`;
      if (this.inFlight.has(key) || !this.cluster.ownsRun(row.parentProcessId)) continue;
      const finished = row.childRunStatus !== null && !ACTIVE_RUN_STATUSES.includes(row.childRunStatus as RunStatus);
      if (finished) this.step(row.worker, key, 'finalize', (signal) => port.finalizeChild(row.delegationId, signal));
      else if (row.orphaned) {
        if (!row.childRunId || !isStopping(row.childRunId)) this.step(row.worker, key, 'stop', (signal) => port.stopChild(row.delegationId, signal));
      } else if (!row.childRunId || !row.childRunStatus) this.step(row.worker, key, 'launch', (signal) => port.launchChild(row.delegationId, signal));
    }
  }

  /**
   * Batch items: finalize a finished run whose end was missed, expire a lease that ran out before a run was recorded,
   * and send the end messages still owed. Every process may: each step is fenced by the item's lease (or the batch's
   * notified mark), so two processes doing the same records once.
   */
  private reconcileBatchItems(rows: readonly RunningBatchItem[], unnotified: number): void {
    const port = this.batches;
    if (!port) return;
    const now = Date.now();
    for (const row of rows) {
      const key = `b:${row.itemId}`;
      if (this.inFlight.has(key)) continue;
      if (row.runId && row.runStatus && !ACTIVE_RUN_STATUSES.includes(row.runStatus as RunStatus)) {
        this.step(row.worker, key, 'finalize', (signal) => port.finalizeItem(row.itemId, signal));
      } else if (row.runId && !row.runStatus) {
        // The run row is gone (its conversation deleted): finalize spends the attempt.
        this.step(row.worker, key, 'finalize', (signal) => port.finalizeItem(row.itemId, signal));
      } else if (!row.runId && row.leaseExpiresAt !== null && row.leaseExpiresAt <= now) {
        this.step(row.worker, key, 'expire', () => port.expireItem(row.itemId, row.lease));
      }
    }
    if (unnotified > 0 && !this.inFlight.has('batch-notify')) this.step('batch:notify', 'batch-notify', 'notify', (signal) => port.notifyEnded(signal));
  }

  private launch(teamId: string, jobId: string): void {
    this.step(teamId, jobId, 'launch', (signal) => this.jobs.launch(jobId, signal));
  }

  /** Queue one step for a job on its team's worker, at most one queued step per job from reconciliation. */
  private step(teamId: string, jobId: string, label: string, fn: Step): void {
    this.inFlight.add(jobId);
    void this.run(teamId, `${label} ${jobId}`, fn)
      .finally(() => {
        this.inFlight.delete(jobId);
        this.forgetIdleDelegationWorker(teamId);
        // A finalize or stop may free a slot; a launch never does.
        if (label !== 'launch') this.wake();
      });
  }

  private runFinished(event: RunEvent): void {
    // An event listener can't await: a failed lookup is logged, and the next pass's reconciliation finds the run.
    this.track(this.afterRunFinished(event.runId).catch((err) => console.error('[scheduler] run end not handled', err)));
  }

  private track(lookup: Promise<void>): void {
    this.lookups.add(lookup);
    void lookup.finally(() => this.lookups.delete(lookup));
  }

  private async afterRunFinished(runId: string): Promise<void> {
    if (this.delegations) await this.delegationRunFinished(runId);
    if (this.batches) {
      const port = this.batches;
      const item = await itemOfRun.get<{ id: string; batchId: string }>(runId);
      if (item) void this.run(batchWorker(item.batchId), `finalize b:${item.id}`, (signal) => port.finalizeItem(item.id, signal)).finally(() => this.wake());
    }
    const job = await jobOfRun.get<{ id: string; teamId: string }>(runId);
    if (!job || !this.cluster.holds(job.teamId)) return;
    void this.run(job.teamId, `finalize ${job.id}`, (signal) => this.jobs.finalize(job.id, signal)).finally(() => this.wake());
  }

  /**
   * Run a step on its worker. A team's step runs only while this process holds the team's lease, checked when the step
   * starts (it may have waited behind others) and by every team write it makes (its fence, server/cluster). A
   * delegating run's steps ('run:…') are the executing process's by construction (runs.process_id).
   */
  private run(key: string, label: string, fn: Step): Promise<void> {
    if (key.startsWith('run:') || key.startsWith('batch:')) return this.worker(key).run(label, fn);
    return this.worker(key).run(label, (signal) => {
      if (!this.cluster.holds(key)) return;
      const fence = this.cluster.fenceFor(key);
      return fence ? runFenced(fence, () => fn(signal)) : fn(signal);
    });
  }

  /** A child's run finished → record its result; a parent finished → its unfinished children are stopped. */
  private async delegationRunFinished(runId: string): Promise<void> {
    const port = this.delegations!;
    const child = await childOfRun.get<{ id: string; parentRunId: string }>(runId);
    const orphans = await openChildrenOf.all<{ id: string }>(runId);
    // With several processes, the parent's process finalizes (its reconciliation finds the finished child).
    if (child && (await this.ownsParent(child.parentRunId))) {
      void this.run(delegationWorker(child.parentRunId), `finalize d:${child.id}`, (signal) => port.finalizeChild(child.id, signal)).finally(() => this.wake());
    }
    if (orphans.length > 0 && !(await this.ownsParent(runId))) return;
    for (const orphan of orphans) {
      void this.run(delegationWorker(runId), `stop d:${orphan.id}`, (signal) => port.stopChild(orphan.id, signal)).finally(() => this.wake());
    }
  }

  stopJob(jobId: string): void {
    // Called by request handlers that don't wait for the stop: a failed lookup is logged, the next pass's
    // reconciliation stops a cancelling job anyway.
    this.track(this.queueStop(jobId).catch((err) => console.error(`[scheduler] stop ${jobId} not queued`, err)));
  }

  private async queueStop(jobId: string): Promise<void> {
    const job = await teamOfJob.get<{ teamId: string }>(jobId);
    if (!job) return;
    // Another process holds the team: its reconciliation carries the cancel out; tell it now.
    if (!this.cluster.holds(job.teamId)) return this.cluster.wakeOthers();
    void this.run(job.teamId, `stop ${jobId}`, (signal) => this.jobs.stop(jobId, signal)).finally(() => this.wake());
  }

  private async ownsParent(runId: string): Promise<boolean> {
    if (!this.cluster.shared) return true;
    return this.cluster.ownsRun((await processOfRun.get<{ p: string | null }>(runId))?.p ?? null);
  }

  /** A delegating run's worker is dropped once idle (teams are few and long-lived; delegating runs are not). */
  private forgetIdleDelegationWorker(key: string): void {
    const worker = this.workers.get(key);
    if (worker?.idle && (key.startsWith('run:') || key.startsWith('batch:'))) this.workers.delete(key);
  }

  worker(teamId: string): TeamWorker {
    let worker = this.workers.get(teamId);
    if (!worker) {
      worker = new TeamWorker(teamId, this.stepTimeoutMs);
      this.workers.set(teamId, worker);
    }
    return worker;
  }

  /** Stop admitting and let every team worker finish its current steps. */
  async drain(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    runEvents().off('run:finished', this.onRunFinished);
    setSchedulerHandle(undefined);
    // A pass already past its view may still be admitting: let it finish (it admits nothing more once stopped), and
    // let the lookups of run ends and stops queue their steps, as they did before the stop.
    await this.passing;
    await Promise.all([...this.lookups]);
    await Promise.all([...this.workers.values()].map((w) => w.drain()));
  }
}

const g = globalThis as unknown as { __ensembleRuntime?: SchedulerRuntime };

/** Start the process's scheduler once, over the given jobs (start-up passes the team domain's teamJobs). */
export function startScheduler(jobs: JobPort, options?: RuntimeOptions): SchedulerRuntime {
  if (!g.__ensembleRuntime) {
    g.__ensembleRuntime = new SchedulerRuntime(jobs, options);
    g.__ensembleRuntime.start();
  }
  return g.__ensembleRuntime;
}

export async function stopScheduler(): Promise<void> {
  const runtime = g.__ensembleRuntime;
  g.__ensembleRuntime = undefined;
  await runtime?.drain();
}

export const currentScheduler = () => g.__ensembleRuntime;
