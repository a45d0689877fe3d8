import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { RunStatus } from '@/components/conversations/run-status';
import { runView } from '@/components/conversations/run-state';
import type { Run } from '@/components/conversations/types';

const cancelledApproval = {
  id: 'r1',
  conversationId: 'c1',
  kind: 'start',
  status: 'cancelled',
  model: 'scripted',
  error: null,
  stopReason: null,
  interrupt: { type: 'approval', tool: 'calculator', args: { expression: '2*3' } },
  inputTokens: 0,
  outputTokens: 0,
  modelCalls: 1,
  unreportedCalls: 0,
  cost: null,
  fingerprint: null,
  assembly: null,
  assemblyChanges: null,
  createdAt: '2026-12-07T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
} satisfies Run;

const render = (batchItem: boolean) =>
  renderToStaticMarkup(createElement(RunStatus, { view: runView(cancelledApproval, { batchItem }), onCancel: async () => {} }));

describe('the chat’s words for an approval whose wait a cancel ended', () => {
  it('a batch item’s hidden conversation says the batch was cancelled, never a team request', () => {
    const html = render(true);
    expect(html).toContain('The approval of calculator was cancelled with its batch: nothing waits for your answer.');
    expect(html).not.toContain('team request');
  });

  it('a team member’s conversation still says its team request was', () => {
    expect(render(false)).toContain('The approval of calculator was cancelled with its team request: nothing waits for your answer.');
  });
});
