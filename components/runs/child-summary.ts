/** One delegated child as the run steps show it under its parent's task call. Pure. */
import type { DelegationResult, DelegationView } from '@/lib/types/delegation';
import { cappedText } from '@/lib/stop-reason-label';
import { formatCount } from './step-items';

const STATUS_WORD: Record<DelegationView['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export type ChildSummary = {
  title: string;
  status: string;
  tokens: string | null;
  error: string | null;
  tone: 'neutral' | 'success' | 'danger';
  /** The child's citations of its own receipts, each as "[r2 calculator] resolved" or "… not found". */
  citations: string[];
};

/** Said wherever resolved citations are shown: they prove the call happened, not that the claim is true. */
export const CITATION_NOTE = 'A resolved citation means the cited tool call happened in the child’s run, not that what it claims is true.';

/** A child's usage: absent figures are said to be unreported, never shown as 0. */
function tokensText(usage: DelegationResult['usage']): string {
  const calls = `${formatCount(usage.modelCalls)} model ${usage.modelCalls === 1 ? 'call' : 'calls'}`;
  if (usage.inputTokens === null || usage.outputTokens === null) return `token usage not reported · ${calls}`;
  const unreported = usage.unreportedCalls ? ` (${formatCount(usage.unreportedCalls)} reported no usage)` : '';
  return `${formatCount(usage.inputTokens)} tokens in · ${formatCount(usage.outputTokens)} out · ${calls}${unreported}`;
}

export function childSummary(child: DelegationView): ChildSummary {
  const capped = cappedText(child.result?.stopReason);
  const status = capped ? `${STATUS_WORD[child.status]} (${capped})` : STATUS_WORD[child.status];
  const who = child.agentName ?? 'a deleted agent';
  const usage = child.result?.usage;
  const tokens = usage && usage.modelCalls > 0 ? tokensText(usage) : null;
  return {
    title: `${child.description || 'Child'} — ${who} (${child.provider}, depth ${child.depth})`,
    status,
    tokens,
    error: child.error ?? child.result?.error ?? null,
    tone: child.status === 'completed' ? 'success' : child.status === 'failed' || child.status === 'cancelled' ? 'danger' : 'neutral',
    citations: (child.result?.citations ?? []).map((c) => `[${c.id} ${c.tool}] ${c.resolved ? 'resolved' : 'not found'}`),
  };
}
