'use client';

/**
 * Running jobs' live output as the team stream pushes it (`event: output`, ADR 031): ephemeral, held in memory per
 * job, never in the feed cache (the feed holds what the server stored; this is only the text being written now).
 * One small store with a listener per job, so a chunk re-renders only that job's card.
 */
import { useSyncExternalStore } from 'react';

export type LiveOutput = { runId: string; text: string; truncated: boolean; done: boolean };

const outputs = new Map<string, LiveOutput>();
const listeners = new Map<string, Set<() => void>>();

const notify = (jobId: string) => listeners.get(jobId)?.forEach((listener) => listener());

export function setLiveOutput(jobId: string, output: LiveOutput): void {
  outputs.set(jobId, output);
  notify(jobId);
}

/** The job is no longer running (its result or status is in the feed), or the workspace closed. */
export function clearLiveOutput(jobId: string): void {
  if (outputs.delete(jobId)) notify(jobId);
}

export function useLiveOutput(jobId: string): LiveOutput | undefined {
  return useSyncExternalStore(
    (listener) => {
      const set = listeners.get(jobId) ?? new Set();
      set.add(listener);
      listeners.set(jobId, set);
      return () => {
        set.delete(listener);
        if (!set.size) listeners.delete(jobId);
      };
    },
    () => outputs.get(jobId),
    () => undefined,
  );
}

/** An `output` message's data, checked (it is the server's, but a bad message must not break the page). */
export function parseOutputPush(raw: string, teamId: string): ({ jobId: string } & LiveOutput) | null {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  if (d.teamId !== teamId || typeof d.jobId !== 'string' || typeof d.runId !== 'string' || typeof d.text !== 'string') return null;
  return { jobId: d.jobId, runId: d.runId, text: d.text, truncated: d.truncated === true, done: d.done === true };
}
