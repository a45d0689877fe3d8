import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import { LIMITS } from '@/lib/limits';
import { publishLiveOutput } from '@/server/push/live-output';
import { runEvents } from '../run-events';
import { appendTail, EMPTY_TAIL, shownText, type TextTail } from './text-tail';
import { createThrottle, systemClock, type Clock, type Throttle } from './throttle';

/** Whose output it is and who may see it: from the server-owned run context, never from model text. */
export type LiveScope = { ownerId: string; conversationId: string; runId: string; teamId: string | null; jobId: string | null };

/** The model call is being tried again after a transient failure (model-call/retry.ts): attempt `attempt` of `maxAttempts`. */
export type LiveRetry = { attempt: number; maxAttempts: number };

/** A tool (not the model) writes: an MCP tool's progress lines, named by its own name and its server's. */
export type LiveToolSource = { server: string; tool: string };

/** `tool`: whose text the tail holds now — a tool's progress, or null for the model's words. */
type Entry = { scope: LiveScope; tail: TextTail; nextResetsText: boolean; retrying: LiveRetry | null; tool: LiveToolSource | null; throttle: Throttle };

/** What the model seam reports while one response is written. */
export type LiveResponse = { append(text: string): void; retrying(retry: LiveRetry): void; end(): void };

const NOTHING: LiveResponse = { append: () => {}, retrying: () => {}, end: () => {} };

// Route bundles and instrumentation may load separate copies of this module: one table per process.
const g = globalThis as unknown as { __ensembleLiveRuns?: { runs: Map<string, Entry>; clock: Clock } };
const state = () => {
  if (!g.__ensembleLiveRuns) {
    g.__ensembleLiveRuns = { runs: new Map(), clock: systemClock };
    // A finished run (success, error, cancel, waiting for input) says so once, then is forgotten.
    runEvents().on('run:finished', ({ runId }) => finishLiveOutput(runId));
  }
  return g.__ensembleLiveRuns;
};

const str = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/** The run's scope from `configurable.ensemble` (RunContext), or null outside a run (an inspection read). */
export function liveScopeOf(config: RunnableConfig | undefined): LiveScope | null {
  const context = config?.configurable?.ensemble as Record<string, unknown> | undefined;
  const ownerId = str(context?.ownerId);
  const conversationId = str(context?.conversationId);
  const runId = str(context?.runId);
  if (!ownerId || !conversationId || !runId) return null;
  return { ownerId, conversationId, runId, teamId: str(context?.teamId), jobId: str(context?.jobId) };
}

const publish = (entry: Entry, done: boolean) =>
  publishLiveOutput({ ...entry.scope, text: shownText(entry.tail), truncated: entry.tail.truncated, done, retrying: done ? null : entry.retrying, tool: entry.tool });

/**
 * A model response starts being written in this run. Its first words replace the previous response's text (one
 * response is shown at a time; a tool-calling response without text leaves the last text in place). Each chunk
 * is kept within LIMITS.liveOutput (the newest text) and published at most every LIMITS.liveOutput.publishMs;
 * `end()` publishes what is pending at once. `retrying()` drops what the failed attempt wrote and publishes the
 * retry at once; the next attempt's first words clear it. With `tool`, the text is that tool's progress (an MCP
 * tool's lines while it runs), published as such, and the model's next words replace it.
 */
export function beginLiveResponse(scope: LiveScope | null, tool: LiveToolSource | null = null): LiveResponse {
  if (!scope) return NOTHING;
  const { runs, clock } = state();
  let entry = runs.get(scope.runId);
  if (!entry) {
    const created: Entry = { scope, tail: EMPTY_TAIL, nextResetsText: true, retrying: null, tool: null, throttle: createThrottle(LIMITS.liveOutput.publishMs, () => publish(created, false), clock) };
    entry = created;
    runs.set(scope.runId, entry);
    // Bounded even if a run never reports its end (a process stopping mid-run): the oldest entry goes.
    if (runs.size > LIMITS.liveOutput.maxRuns) finishLiveOutput(runs.keys().next().value!);
  }
  entry.nextResetsText = true;
  const live = entry;
  return {
    append(text) {
      if (!text || runs.get(scope.runId) !== live) return;
      // The model's words after a tool's progress (or a tool's after the model's) start afresh.
      if (live.nextResetsText || (live.tool === null) !== (tool === null)) {
        live.tail = EMPTY_TAIL;
        live.nextResetsText = false;
      }
      live.tool = tool;
      live.retrying = null;
      live.tail = appendTail(live.tail, text);
      live.throttle.request();
    },
    retrying(retry) {
      if (runs.get(scope.runId) !== live) return;
      // What the failed attempt wrote is not the answer: it goes at once (it was never stored), and the card says
      // the call is being tried again until the new attempt writes.
      if (!live.nextResetsText) live.tail = EMPTY_TAIL;
      live.nextResetsText = true;
      live.retrying = retry;
      live.throttle.request();
      live.throttle.flush();
    },
    end() {
      if (runs.get(scope.runId) === live) live.throttle.flush();
    },
  };
}

/** The run finished: its last text goes out with `done`, and nothing of it is kept. */
export function finishLiveOutput(runId: string): void {
  const { runs } = state();
  const entry = runs.get(runId);
  if (!entry) return;
  runs.delete(runId);
  entry.throttle.cancel();
  publish(entry, true);
}

/** Runs with live output in this process (tests check nothing is left behind). */
export const liveRunCount = (): number => state().runs.size;

/** Tests drive time through this clock (throttle.ts). */
export function setLiveOutputClock(clock: Clock): void {
  state().clock = clock;
}
