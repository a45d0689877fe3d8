import 'server-only';

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
  /**
   * When each owner was last present (held a slot or had admissible work), in the caller's clock (ms), kept
   * for `sharedGraceMs`. Present only when the caller passes `now`; absent means "nobody remembered".
   */
  readonly seen?: Readonly<Record<string, number>>;
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
  /** Slots each owner holds now (its admitted, unfinished jobs); owners not listed hold none. */
  readonly heldSlots?: ReadonlyMap<string, number> | Readonly<Record<string, number>>;
  /**
   * The shared cap (LIMITS.scheduler.maxSlotsPerOwnerWhenShared): an owner holding this many slots is not
   * admitted again while another owner is present. Missing or not a number: no cap.
   */
  readonly maxPerOwnerWhenShared?: number;
  /** How long an owner counts as present after it was last seen (ms); missing or ≤ 0: no memory. */
  readonly sharedGraceMs?: number;
  /** The caller's clock (ms) for presence memory. The planner never reads a clock itself. */
  readonly now?: number;
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
