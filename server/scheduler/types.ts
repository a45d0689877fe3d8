// Types for the owner-fair admission planner (server/scheduler/planner.ts).
// Pure data: no I/O, safe to import from the runtime, scripts and tests.

/** One job that may be admitted: the caller's own row type may carry more fields (teamId, kind, …). */
export interface Candidate {
  readonly jobId: string;
  readonly conversationId: string;
}

/** One owner's admissible candidates, in the owner's own order (FIFO by creation). */
export interface OwnerQueue<C extends Candidate = Candidate> {
  readonly ownerId: string;
  readonly candidates: readonly C[];
}

/**
 * The rotation carried between planning passes. Small and JSON-serializable; `emptyRound()` is a
 * valid start (e.g. after a restart).
 * - `due`: owners still owed their attempt in the current round, in order.
 * - `served`: owners that already had their attempt in the current round, in the order they had it
 *   (this order seeds the next round).
 */
export interface RoundState {
  readonly due: readonly string[];
  readonly served: readonly string[];
}

export interface PlanInput<C extends Candidate = Candidate> {
  readonly queues: readonly OwnerQueue<C>[];
  /** Admitted, unfinished jobs across the database now (waiting_input excluded), from durable state. */
  readonly activeCount: number;
  /** Capacity bound (LIMITS.scheduler.maxActiveJobs). */
  readonly maxActive: number;
  /** Previous pass's round; null/undefined/malformed is treated as an empty round. */
  readonly round?: RoundState | null;
  /** Conversations held by a running/waiting job: their candidates are never admitted. */
  readonly busyConversations?: ReadonlySet<string> | readonly string[];
}

export interface Admission<C extends Candidate = Candidate> {
  readonly ownerId: string;
  readonly jobId: string;
  readonly conversationId: string;
  /** The caller's candidate object, passed through unchanged. */
  readonly candidate: C;
}

export interface PlanResult<C extends Candidate = Candidate> {
  /** In admission order; the runtime should try them in this order. */
  readonly admissions: readonly Admission<C>[];
  readonly round: RoundState;
}
