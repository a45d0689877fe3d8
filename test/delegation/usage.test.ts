import { describe, expect, it } from 'vitest';
import type { DelegationView } from '@/lib/types/delegation';
import { childSummary } from '@/components/runs/child-summary';
import { cancelledResult, childUsage } from '@/server/agents/delegation/result';
import type { Delegation } from '@/server/db/schema';

/**
 * A child's usage as its parent and the run steps receive it. What must not happen: usage a provider never reported
 * shown or stored as 0 tokens (a child that spent an unknown amount passing for one that spent nothing).
 */
describe('a child’s absent usage stays absent and counts as unreported', () => {
  it('every call unreported: no token figures, the calls counted as unreported', () => {
    expect(childUsage({ inputTokens: 0, outputTokens: 0, modelCalls: 2, unreportedCalls: 2 })).toEqual({ inputTokens: null, outputTokens: null, modelCalls: 2, unreportedCalls: 2 });
  });

  it('some calls reported: their sums, and how many did not report', () => {
    expect(childUsage({ inputTokens: 30, outputTokens: 10, modelCalls: 3, unreportedCalls: 1 })).toEqual({ inputTokens: 30, outputTokens: 10, modelCalls: 3, unreportedCalls: 1 });
  });

  it('a child cancelled before its run started has no usage figures, not zeros', () => {
    const row = { id: 'd1', childRunId: null } as Delegation;
    expect(cancelledResult(row, null).usage).toEqual({ inputTokens: null, outputTokens: null, modelCalls: 0, unreportedCalls: 0 });
  });

  it('the run steps say unreported usage is not reported, never "0 tokens"', () => {
    const view = { id: 'd1', description: 'Add up', agentName: 'Helper', provider: 'spawn', depth: 1, status: 'completed', error: null } as DelegationView;
    const result = { ...cancelledResult({ id: 'd1', childRunId: 'c' } as Delegation, null), status: 'completed' as const };
    const unreported = childSummary({ ...view, result: { ...result, usage: { inputTokens: null, outputTokens: null, modelCalls: 1, unreportedCalls: 1 } } });
    expect(unreported.tokens).toBe('token usage not reported · 1 model call');
    const partly = childSummary({ ...view, result: { ...result, usage: { inputTokens: 40, outputTokens: 2, modelCalls: 2, unreportedCalls: 1 } } });
    expect(partly.tokens).toBe('40 tokens in · 2 out · 2 model calls (1 reported no usage)');
  });
});
