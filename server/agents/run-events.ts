import 'server-only';
import { EventEmitter } from 'node:events';
import type { RunStatus } from '@/lib/types/conversation';

/**
 * Emitted when a run starts executing and when it reaches a final status. `remote`: it happened in another app process
 * (Postgres, several processes: the push bridge relays 'run:finished'); work only the executing process does (pruning
 * its thread) skips those.
 */
export type RunEvent = { runId: string; conversationId: string; ownerId: string; status: RunStatus; teamId?: string | null; remote?: boolean };

export type RunEventMap = {
  'run:started': [RunEvent];
  'run:finished': [RunEvent];
};

/** The abort reason of a run a person (or a team cancel) stopped; the executor records 'cancelled'. */
export class RunCancelledError extends Error {
  constructor() {
    super('Run cancelled');
    this.name = 'RunCancelled';
  }
}

type ActiveRun = { controller: AbortController; promise: Promise<void> };

type RunRuntime = {
  events: EventEmitter<RunEventMap>;
  active: Map<string, ActiveRun>;
  /** Set at shutdown: no new execution starts in this process; pending rows wait for the next start. */
  suspended: boolean;
};

// One emitter and one table of executing runs per process, shared by every copy of this module.
const g = globalThis as unknown as { __ensembleRunRuntime?: RunRuntime };

function runtime(): RunRuntime {
  if (!g.__ensembleRunRuntime) {
    const events = new EventEmitter<RunEventMap>();
    events.setMaxListeners(0);
    g.__ensembleRunRuntime = { events, active: new Map(), suspended: false };
  }
  return g.__ensembleRunRuntime;
}

/** Subscribe to run lifecycle events (the team scheduler waits on these instead of polling). */
export const runEvents = (): EventEmitter<RunEventMap> => runtime().events;

/** Runs executing in this process: runId → abort controller and the execution promise. */
export const activeRuns = (): Map<string, ActiveRun> => runtime().active;

/** Whether this process stopped executing runs (shutdown): launches are left for the next start's recovery. */
export const runsSuspended = (): boolean => runtime().suspended;

export const setRunsSuspended = (value: boolean): void => {
  runtime().suspended = value;
};
