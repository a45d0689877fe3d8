import type { RunStatus } from './types/conversation';
import type { RunOutcome } from './types/run-events';

const OUTCOMES: Record<RunStatus, RunOutcome | null> = {
  pending: null,
  running: null,
  success: 'completed',
  error: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
};

/** How a run ended, in the words of run events and the timeline; null while it is pending or running. */
export function runOutcome(status: Exclude<RunStatus, 'pending' | 'running'>): RunOutcome;
export function runOutcome(status: RunStatus): RunOutcome | null;
export function runOutcome(status: RunStatus): RunOutcome | null {
  return OUTCOMES[status];
}
