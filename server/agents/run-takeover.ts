import 'server-only';
import { LIMITS } from '@/lib/limits';
import { currentCluster } from '@/server/cluster/cluster';
import { logHandover } from '@/server/cluster/handover-log';
import { clusterSignals } from '@/server/cluster/signals';
import { statement } from '@/server/db/statement';
import { recoverOrFail, type RecoveryReport } from './recovery';
import { activeRuns, RunCancelledError } from './run-events';
import { findRun, finishRun, isFinished } from './run-store';
import { applyNote } from './thread-notes';

/*
 * Each statement here is one compare-and-set UPDATE, run on its own (autocommit, READ COMMITTED: Postgres re-checks the
 * condition on the row it updates), never inside a SERIALIZABLE writeTx: a scan of every active run there would
 * conflict with every other process writing any run, and make their transactions retry or fail.
 *
 * Runs across several app processes on one Postgres database (ADR 033 §5). A run is executed by the process that
 * wrote it (runs.process_id); when that process stops heartbeating, another takes the run over and recovers it from
 * its checkpoint as a restart would. Liveness is judged in SQL against app_processes at the moment of the takeover,
 * so a live process's run is never taken. Postgres only: SQLite has one process, whose start-up recovers everything.
 */

const dead = `(runs.process_id is null or not exists (
  select 1 from app_processes p where p.id = runs.process_id and p.heartbeat_at > now() - (? * interval '1 millisecond')))`;

// A batch per beat, claimed without waiting on another process claiming the same rows.
// `was` (the row as the statement found it) names the process the run is taken from, for the log.
const claimOrphans = statement(
  `update runs set process_id = ? from (
     select id, process_id as was from runs where status in ('pending','running') and ${dead}
      order by created_at limit 20 for update skip locked) orphan
    where runs.id = orphan.id
   returning runs.id, runs.kind, orphan.was`,
);
const claimOne = statement(`update runs set process_id = ? where id = ? and status in ('pending','running') and ${dead} returning id`);
// Answers whether it had been asked before (a repeated cancel does not wait again).
const askCancel = statement(
  `update runs set cancel_requested_at = coalesce(before.at, now())
     from (select cancel_requested_at as at from runs where id = ?) before
    where runs.id = ? and runs.status in ('pending','running') and runs.process_id <> ? and not ${dead}
   returning (before.at is not null) as again`,
);
const requestedCancels = statement(`select id from runs where process_id = ? and status in ('pending','running') and cancel_requested_at is not null`);
// A finished run whose delegated children are still open: its process finalizes or stops them (scheduler/view.ts).
const adoptParents = statement(
  `update runs set process_id = ? where id in (
     select r.id from runs r join delegations d on d.parent_run_id = r.id
      where d.status in ('queued','running') and r.status not in ('pending','running')) and ${dead}
   returning id`,
);

const leaseMs = () => LIMITS.cluster.leaseMs;

/** Take over the unfinished runs of processes that stopped heartbeating, and recover each from its checkpoint. */
export async function takeOverOrphanedRuns(): Promise<RecoveryReport> {
  const me = currentCluster().processId;
  const claimed = await claimOrphans.all<{ id: string; kind: string; was: string | null }>(me, leaseMs());
  for (const { id, was } of claimed) logHandover('run', id, was ?? 'none', me);
  const report: RecoveryReport = [];
  for (const { id, kind } of claimed) {
    // A note is appended, never executed (thread-notes.ts); it releases its conversation once written.
    if (kind === 'note') {
      await applyNote(id).catch((err) => console.error(`[runs] could not append note ${id}`, err));
      report.push({ runId: id, action: 'continued' });
      continue;
    }
    const run = await findRun(id);
    if (!run || isFinished(run.status)) continue;
    report.push({ runId: id, ...(await recoverOrFail(run)) });
  }
  if (claimed.length > 0) console.log(`[runs] took over ${claimed.length} run(s) of a stopped process`);
  return report;
}

/** Finished parent runs of stopped processes with open children: this process finalizes or stops the children. */
export async function adoptOrphanedParents(): Promise<number> {
  const me = currentCluster().processId;
  return (await adoptParents.all(me, leaseMs())).length;
}

/**
 * A cancel for a run this process does not execute. Another live process executes it: mark it and tell that
 * process ('asked', or 'asked again' when it was asked before; it stops the run, whose executor records
 * 'cancelled'). Nobody live does: take it over, so it is ours to record ('taken'). Already ours or finished: 'mine'.
 */
export async function routeCancel(runId: string): Promise<'asked' | 'asked again' | 'taken' | 'mine'> {
  const cluster = currentCluster();
  if (!cluster.shared) return 'mine';
  const me = cluster.processId;
  const asked = await askCancel.get<{ again: number | boolean }>(runId, runId, me, leaseMs());
  if (asked) {
    clusterSignals().cancel(runId);
    return asked.again ? 'asked again' : 'asked';
  }
  return (await claimOne.get(me, runId, leaseMs())) ? 'taken' : 'mine';
}

/** Stop the runs executing here that another process was asked to cancel (a missed note; the beat's backstop). */
export async function carryOutCancelRequests(): Promise<void> {
  for (const { id } of await requestedCancels.all<{ id: string }>(currentCluster().processId)) stopHere(id);
}

/** A cancel note for a run this process may be executing. */
export function stopHere(runId: string): void {
  const active = activeRuns().get(runId);
  if (active && !active.controller.signal.aborted) active.controller.abort(new RunCancelledError());
  else if (!active) void finishIfIdle(runId);
}

/** Asked to cancel a run of ours that is not executing (never launched, e.g. during a shutdown): record it. */
async function finishIfIdle(runId: string): Promise<void> {
  const run = await findRun(runId);
  if (run && !isFinished(run.status) && run.processId === currentCluster().processId && !activeRuns().has(runId)) {
    await finishRun(runId, { status: 'cancelled' }).catch((err) => console.error(`[runs] could not cancel ${runId}`, err));
  }
}
