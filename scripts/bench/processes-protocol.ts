/**
 * Messages between scripts/bench-processes.ts and its worker processes (scripts/bench/processes-worker.ts), over
 * the IPC channel fork() opens. The orchestrator drives the steps so every worker is in the same state at each:
 * loaded → joined (cluster started, its share of teams claimed) → go (scheduler started) → stop (report, leave).
 */
export type ToWorker = { type: 'join' } | { type: 'go' } | { type: 'stop' };

export type WorkerReport = {
  /** process.cpuUsage() (user + system) from `go` to `stop`, in ms. */
  cpuMs: number;
  admissions: number;
  passes: number;
  /** Leases taken over the whole run (the join's share included), given back idle, lost. */
  claimed: number;
  released: number;
  lost: number;
  /** The longest beat hook (run takeover: it writes through the process's write queue), in ms. */
  slowestHookMs: number;
};

export type FromWorker =
  | { type: 'loaded' }
  | { type: 'joined'; heldTeams: number }
  | { type: 'started' }
  | ({ type: 'report' } & WorkerReport);
