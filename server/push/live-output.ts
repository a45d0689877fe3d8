import 'server-only';
import { LIMITS } from '@/lib/limits';
import { pushBus, type LiveOutputChange } from './bus';

// The last live output of each running run, so a viewer who opens a stream mid-run sees the text so far: kept from
// the bus, so a run executing in another process (relayed by the push bridge) is remembered here too.
// Route bundles and instrumentation may load separate copies of this module: one table per process.
const g = globalThis as unknown as { __ensembleLiveOutput?: Map<string, LiveOutputChange> };
const latest = (): Map<string, LiveOutputChange> => {
  if (!g.__ensembleLiveOutput) {
    const table = new Map<string, LiveOutputChange>();
    g.__ensembleLiveOutput = table;
    pushBus().on('liveOutput', (change) => remember(table, change));
  }
  return g.__ensembleLiveOutput;
};

/**
 * Remember a run's live output until the run is done. Bounded: at most LIMITS.liveOutput.maxRuns runs are remembered
 * (the oldest goes first; only a run that never reported its end, a process stopped mid-run, could otherwise stay),
 * each with at most LIMITS.liveOutput.maxBytes of text.
 */
function remember(table: Map<string, LiveOutputChange>, change: LiveOutputChange): void {
  table.delete(change.runId);
  if (!change.done) {
    table.set(change.runId, change);
    if (table.size > LIMITS.liveOutput.maxRuns) table.delete(table.keys().next().value!);
  }
}

/** What a stream says of a running run's live output, beside the conversation or job it belongs to. */
export type LiveOutputFields = {
  runId: string;
  text: string;
  truncated: boolean;
  done: boolean;
  retrying: NonNullable<LiveOutputChange['retrying']> | null;
  tool: NonNullable<LiveOutputChange['tool']> | null;
};

export const liveOutputFields = (c: LiveOutputChange): LiveOutputFields => ({
  runId: c.runId,
  text: c.text,
  truncated: c.truncated,
  done: c.done,
  retrying: c.retrying ?? null,
  tool: c.tool ?? null,
});

/** Announce a run's live output (its viewers, here and through the push bridge in the other processes). */
export function publishLiveOutput(change: LiveOutputChange): void {
  latest();
  pushBus().emit('liveOutput', change);
}

/** Start remembering relayed live output before any viewer asks (start-up on Postgres, with the push bridge). */
export const rememberLiveOutput = (): void => void latest();

/** The owner's running runs' live output that `match`es, oldest first. */
export function currentLiveOutput(ownerId: string, match: (change: LiveOutputChange) => boolean): LiveOutputChange[] {
  return [...latest().values()].filter((c) => c.ownerId === ownerId && match(c));
}
