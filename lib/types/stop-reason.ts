/**
 * Why a run ended early, beside its normal status (never a status of its own). Null when it ran its course.
 * - turn_capped: max turns reached (completed when a usable partial answer exists, failed otherwise);
 * - token_capped: the run's token budget was spent, its pending tool calls removed and an answer required;
 * - loop_capped: the same tool calls repeated, or one tool called over and over, and an answer required;
 * - time_capped: the run's wall-clock limit;
 * - delegation_capped: the run's children were used up and its `task` calls removed.
 */
export const STOP_REASONS = ['turn_capped', 'token_capped', 'loop_capped', 'time_capped', 'delegation_capped'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export const isStopReason = (value: unknown): value is StopReason => typeof value === 'string' && (STOP_REASONS as readonly string[]).includes(value);
