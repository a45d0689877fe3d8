'use client';

/**
 * Live output as the event streams push it (`event: output`, ADR 031): ephemeral, held in memory per key (a team
 * job `job:<id>`, a conversation's run `run:<id>`), never in a query cache (caches hold what the server stored; this
 * is only the text being written now). One small store with listeners per key, so a chunk re-renders one view.
 */
import { useSyncExternalStore } from 'react';
import { parsePushObject } from '@/lib/push-stream';

/**
 * `retrying`: the model call failed for now and is being tried again (attempt of maxAttempts); its text was dropped.
 * `tool`: the text is a tool's progress (an MCP tool's own name and its server's), not the model writing; absent
 * when the model wrote it.
 */
export type LiveOutput = {
  runId: string;
  text: string;
  truncated: boolean;
  done: boolean;
  retrying: { attempt: number; maxAttempts: number } | null;
  tool?: { server: string; tool: string } | null;
};

const outputs = new Map<string, LiveOutput>();
const listeners = new Map<string, Set<() => void>>();
/** Which key holds each run's output (a job's key names the job, not its run), for views that know only the run. */
const keyOfRun = new Map<string, string>();
const runListeners = new Map<string, Set<() => void>>();

const notify = (key: string) => listeners.get(key)?.forEach((listener) => listener());
const notifyRun = (runId: string) => runListeners.get(runId)?.forEach((listener) => listener());

export const jobOutputKey = (jobId: string) => `job:${jobId}`;
export const runOutputKey = (runId: string) => `run:${runId}`;

export function setLiveOutput(key: string, output: LiveOutput): void {
  const previous = outputs.get(key);
  outputs.set(key, output);
  keyOfRun.set(output.runId, key);
  // A job's next run takes its key: the earlier run has no output any more.
  if (previous && previous.runId !== output.runId) forgetRun(previous.runId, key);
  notify(key);
  notifyRun(output.runId);
}

/** The work is no longer running (its result or status is on screen), or its page closed. */
export function clearLiveOutput(key: string): void {
  const previous = outputs.get(key);
  if (!outputs.delete(key)) return;
  notify(key);
  if (previous) forgetRun(previous.runId, key);
}

function forgetRun(runId: string, key: string): void {
  if (keyOfRun.get(runId) !== key) return;
  keyOfRun.delete(runId);
  notifyRun(runId);
}

function subscribe(table: Map<string, Set<() => void>>, id: string, listener: () => void): () => void {
  const set = table.get(id) ?? new Set();
  set.add(listener);
  table.set(id, set);
  return () => {
    set.delete(listener);
    if (!set.size) table.delete(id);
  };
}

export function useLiveOutput(key: string): LiveOutput | undefined {
  return useSyncExternalStore(
    (listener) => subscribe(listeners, key, listener),
    () => outputs.get(key),
    () => undefined,
  );
}

/** A run's live output, whichever view's key holds it (a conversation's run or a team job's). */
export function runLiveOutput(runId: string): LiveOutput | undefined {
  const key = keyOfRun.get(runId);
  return key === undefined ? undefined : outputs.get(key);
}

/** A run's live output for a view that knows only the run (its Steps): re-renders when that run's output changes. */
export function useRunLiveOutput(runId: string): LiveOutput | undefined {
  return useSyncExternalStore(
    (listener) => subscribe(runListeners, runId, listener),
    () => runLiveOutput(runId),
    () => undefined,
  );
}

/**
 * An `output` message's data, checked (it is the server's, but a bad message must not break the page): its
 * `scope` field (teamId or conversationId) must be the stream's own.
 */
export function parseOutputPush(raw: string, scope: { field: 'teamId' | 'conversationId'; id: string }): (LiveOutput & { jobId: string | null }) | null {
  const d = parsePushObject(raw);
  if (!d) return null;
  if (d[scope.field] !== scope.id || typeof d.runId !== 'string' || typeof d.text !== 'string') return null;
  const tool = toolOf(d.tool);
  return {
    jobId: typeof d.jobId === 'string' ? d.jobId : null,
    runId: d.runId,
    text: d.text,
    truncated: d.truncated === true,
    done: d.done === true,
    retrying: retryOf(d.retrying),
    ...(tool ? { tool } : {}),
  };
}

const MAX_SHOWN_ATTEMPTS = 100;

/** A retry's numbers, only when both are small whole numbers in order (anything else: no retry shown). */
function retryOf(value: unknown): LiveOutput['retrying'] {
  if (!value || typeof value !== 'object') return null;
  const { attempt, maxAttempts } = value as Record<string, unknown>;
  const whole = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= MAX_SHOWN_ATTEMPTS;
  return whole(attempt) && whole(maxAttempts) && attempt <= maxAttempts ? { attempt, maxAttempts } : null;
}

/** A tool source, only when both names are strings (anything else: the model's text). Shown as text, never markup. */
function toolOf(value: unknown): LiveOutput['tool'] {
  const t = value as { server?: unknown; tool?: unknown } | null;
  return typeof t?.server === 'string' && typeof t.tool === 'string' ? { server: t.server, tool: t.tool } : null;
}
