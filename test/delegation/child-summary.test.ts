import { describe, expect, it } from 'vitest';
import { childSummary } from '@/components/runs/child-summary';
import type { DelegationView } from '@/lib/types/delegation';

const base: DelegationView = {
  id: 'd1',
  parentRunId: 'p',
  parentToolCallId: 'call_1',
  agentId: 'a',
  agentName: 'Helper',
  provider: 'spawn',
  description: 'Add up',
  depth: 1,
  status: 'running',
  childRunId: 'c',
  result: null,
  error: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  finishedAt: null,
};

describe('childSummary: what the run steps say about one child', () => {
  it('a running child: title, status, no tokens yet', () => {
    expect(childSummary(base)).toEqual({ title: 'Add up — Helper (spawn, depth 1)', status: 'Running', tokens: null, error: null, tone: 'neutral', citations: [] });
  });

  it('a capped, failed child with usage and citations, resolved and not', () => {
    const s = childSummary({
      ...base,
      agentName: null,
      status: 'failed',
      error: null,
      result: {
        delegationId: 'd1',
        childRunId: 'c',
        status: 'failed',
        stopReason: 'time_capped',
        model: 'scripted',
        usage: { inputTokens: 1234, outputTokens: 5, modelCalls: 1, unreportedCalls: 0 },
        receipts: [{ id: 'r1', tool: 'calculator', status: 'ok' }],
        citations: [
          { id: 'r1', tool: 'calculator', resolved: true },
          { id: 'r9', tool: 'calculator', resolved: false },
        ],
        output: null,
        error: 'Stopped after 10 minutes',
      },
    });
    expect(s).toEqual({
      title: 'Add up — a deleted agent (spawn, depth 1)',
      status: 'Failed (capped: time)',
      tokens: '1,234 tokens in · 5 out · 1 model call',
      error: 'Stopped after 10 minutes',
      tone: 'danger',
      citations: ['[r1 calculator] resolved', '[r9 calculator] not found'],
    });
  });
});
