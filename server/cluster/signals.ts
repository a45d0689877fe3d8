import 'server-only';

/** Messages to the other app processes (start-up wires them to the push bridge's NOTIFY on Postgres). */
export type ClusterSignals = {
  /** Plan and reconcile now: work one of them must launch was admitted elsewhere. */
  wake(): void;
  /** Stop this run if you execute it (its cancel_requested_at is set too, for a process that misses the note). */
  cancel(runId: string): void;
};

const none: ClusterSignals = { wake: () => {}, cancel: () => {} };
const g = globalThis as unknown as { __ensembleClusterSignals?: ClusterSignals };

export const clusterSignals = (): ClusterSignals => g.__ensembleClusterSignals ?? none;

export function setClusterSignals(signals: ClusterSignals | undefined): void {
  g.__ensembleClusterSignals = signals;
}
