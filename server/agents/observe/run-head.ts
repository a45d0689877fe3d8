import 'server-only';
import { findRun, isFinished } from '../run-store';
import { latestRunEventSeq } from './record';

/** Where a run's event log stands: its highest seq (0 before the first event) and whether the run has finished. */
export type RunHead = { seq: number; finished: boolean };

/**
 * The run's head, read as a run stream's message (server/push/run-stream.ts). Status before seq, like
 * runEventsPage: a run recorded finished has its run.finished event stored already, so `finished` with this seq
 * means nothing follows it. A run that is gone reads as finished (its stream has nothing left to say).
 */
export async function readRunHead(runId: string): Promise<RunHead> {
  const run = await findRun(runId);
  const finished = !run || isFinished(run.status);
  return { seq: await latestRunEventSeq(runId), finished };
}
