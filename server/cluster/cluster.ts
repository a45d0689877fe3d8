import 'server-only';
import type { StepFence } from './fence';
import { thisProcess } from './identity';

/**
 * What the scheduler and the run executor need to know about the other app processes on the database (ADR 033 §4–5).
 * SQLite has exactly one process (its service lock): `localCluster`. Postgres may have several: `SharedCluster`.
 */
export interface Cluster {
  readonly processId: string;
  /** Whether other processes may share the database (leases, liveness and the shared round matter). */
  readonly shared: boolean;
  /** This process may run the team's scheduler steps now (it holds the team's lease). */
  holds(teamId: string): boolean;
  /** Take the team's lease if it is free, expired or already ours; false when a live process holds it. */
  claim(teamId: string): Promise<boolean>;
  /** The lease a step of this team runs under (its writes are checked against it); undefined: nothing to check. */
  fenceFor(teamId: string): StepFence | undefined;
  /** The steps of a run's delegated children belong to the process executing it (runs.process_id). */
  ownsRun(processId: string | null): boolean;
  /**
   * One planning pass at a time across processes, with the rotation they share (ADR 004): fn gets the round the
   * last pass left and returns the next one with its own value.
   */
  planningPass<T>(fn: (round: unknown) => Promise<{ round: unknown; value: T }>): Promise<T>;
  /** Tell the other processes to plan and reconcile now (work they must launch was admitted here). */
  wakeOthers(): void;
}

/** The one process of a SQLite database: it holds every team, owns every run, and keeps the round in memory. */
export function localCluster(): Cluster {
  let round: unknown = null;
  return {
    processId: thisProcess().id,
    shared: false,
    holds: () => true,
    claim: async () => true,
    fenceFor: () => undefined,
    ownsRun: () => true,
    async planningPass(fn) {
      const result = await fn(round);
      round = result.round;
      return result.value;
    },
    wakeOthers: () => {},
  };
}

// Route bundles and instrumentation may load separate copies: one cluster per process.
const g = globalThis as unknown as { __ensembleCluster?: Cluster };

/** The process's cluster: set by start-up on Postgres; otherwise (SQLite, tests) the local one. */
export function currentCluster(): Cluster {
  return (g.__ensembleCluster ??= localCluster());
}

export function setCurrentCluster(cluster: Cluster | undefined): void {
  g.__ensembleCluster = cluster;
}
