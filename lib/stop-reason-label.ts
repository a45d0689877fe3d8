import type { RunOutcome } from './types/run-events';
import { isStopReason, type StopReason } from './types/stop-reason';

/** The cap a stop reason names, as a person reads it: "loop", "turns", … */
export const CAP_WORD: Record<StopReason, string> = {
  turn_capped: 'turns',
  token_capped: 'tokens',
  loop_capped: 'loop',
  time_capped: 'time',
  delegation_capped: 'delegation',
};

/** "capped: loop" for a known stop reason; an unknown one as recorded (with underscores as spaces); '' for none. */
export function cappedText(reason: string | null | undefined): string {
  if (!reason) return '';
  return `capped: ${isStopReason(reason) ? CAP_WORD[reason] : reason.replace(/_/g, ' ')}`;
}

const OUTCOME_WORD: Record<RunOutcome, string> = { completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled', interrupted: 'Waiting' };

/**
 * How a finished run (or a job, which ends as its run did) reads everywhere — the conversation, the team card, the
 * run steps, the runs timeline: "Completed", "Completed (capped: loop)", "Failed (capped: turns)". `word` replaces the
 * outcome's own word when a surface already has one (e.g. a card's status badge "Done").
 */
export function stopReasonLabel(outcome: RunOutcome, reason: string | null | undefined, word = OUTCOME_WORD[outcome]): string {
  const capped = cappedText(reason);
  return capped ? `${word} (${capped})` : word;
}
