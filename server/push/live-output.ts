import 'server-only';
import { LIMITS } from '@/lib/limits';
import { pushBus, type LiveOutputChange } from './bus';

// The last live output published per running run, so a viewer who opens a stream mid-run sees the text so far.
// Route bundles and instrumentation may load separate copies of this module: one table per process.
const g = globalThis as unknown as { __ensembleLiveOutput?: Map<string, LiveOutputChange> };
const latest = (): Map<string, LiveOutputChange> => (g.__ensembleLiveOutput ??= new Map());

/**
 * Announce a run's live output and remember it until the run is done. Bounded: at most LIMITS.liveOutput.maxRuns
 * runs are remembered (the oldest goes first; only a run that never reported its end, a process stopped mid-run,
 * could otherwise stay), each with at most LIMITS.liveOutput.maxBytes of text.
 */
export function publishLiveOutput(change: LiveOutputChange): void {
  const table = latest();
  table.delete(change.runId);
  if (!change.done) {
    table.set(change.runId, change);
    if (table.size > LIMITS.liveOutput.maxRuns) table.delete(table.keys().next().value!);
  }
  pushBus().emit('liveOutput', change);
}

/** The owner's running runs' live output that `match`es, oldest first. */
export function currentLiveOutput(ownerId: string, match: (change: LiveOutputChange) => boolean): LiveOutputChange[] {
  return [...latest().values()].filter((c) => c.ownerId === ownerId && match(c));
}
