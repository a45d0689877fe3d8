/** Token totals of a run (or a job's run) in words. Pure. Figures come from the run's recorded model calls. */
import type { TokenTotals } from '@/lib/types/run-events';
import { formatCount } from './step-items';

export type TotalsText = { main: string; note: string | null };

export function totalsText(t: TokenTotals): TotalsText {
  if (t.modelCalls === 0) return { main: 'No model calls yet', note: null };
  const calls = `${formatCount(t.modelCalls)} model ${t.modelCalls === 1 ? 'call' : 'calls'}`;
  const main = `${formatCount(t.inputTokens)} tokens in · ${formatCount(t.outputTokens)} out · ${calls}`;
  if (t.unreportedCalls === 0) return { main, note: null };
  const all = t.unreportedCalls >= t.modelCalls;
  const note = all
    ? 'The provider reported no token usage for these calls.'
    : `${formatCount(t.unreportedCalls)} of them reported no token usage (not counted).`;
  return { main, note };
}
