import { describe, expect, it } from 'vitest';
import { isRunActive, laterRun, readInterrupt, runView } from '@/components/conversations/run-state';
import type { Run, RunStatus } from '@/components/conversations/types';

const run = (status: RunStatus, over: Partial<Run> = {}): Run => ({
  id: 'r1',
  conversationId: 'c1',
  kind: 'start',
  status,
  model: 'scripted',
  error: null,
  stopReason: null,
  interrupt: null,
  inputTokens: 0,
  outputTokens: 0,
  modelCalls: 0,
  unreportedCalls: 0,
  cost: null,
  fingerprint: null,
  assembly: null,
  assemblyChanges: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  ...over,
});

describe('isRunActive', () => {
  it('is true while a run is pending or running, false otherwise', async () => {
    expect(isRunActive(run('pending'))).toBe(true);
    expect(isRunActive(run('running'))).toBe(true);
    for (const s of ['success', 'error', 'interrupted', 'cancelled'] as const) expect(isRunActive(run(s))).toBe(false);
    expect(isRunActive(null)).toBe(false);
    expect(isRunActive(undefined)).toBe(false);
  });
});

describe('readInterrupt', () => {
  it('reads an approval and a clarification', async () => {
    expect(readInterrupt(run('interrupted', { interrupt: { type: 'approval', tool: 'calculator', args: { expression: '1+1' } } }))).toEqual({
      type: 'approval',
      tool: 'calculator',
      args: { expression: '1+1' },
    });
    // An MCP tool's server and own name come along; a malformed one is dropped, not shown.
    const mcp = { type: 'approval', tool: 'mcp_0123abcd_shout', args: {}, mcp: { server: 'stub', tool: 'shout' } };
    expect(readInterrupt(run('interrupted', { interrupt: mcp }))).toEqual(mcp);
    expect(readInterrupt(run('interrupted', { interrupt: { ...mcp, mcp: { server: 1, tool: 'shout' } } }))).toEqual({ type: 'approval', tool: 'mcp_0123abcd_shout', args: {} });
    expect(readInterrupt(run('interrupted', { interrupt: { type: 'clarification', question: 'Which city?', questionId: 'q1' } }))).toEqual({
      type: 'clarification',
      question: 'Which city?',
      questionId: 'q1',
    });
  });

  it('ignores interrupts on runs that are not interrupted, and malformed payloads', async () => {
    const approval = { type: 'approval', tool: 'calculator', args: {} };
    expect(readInterrupt(run('success', { interrupt: approval }))).toBeNull();
    expect(readInterrupt(run('interrupted', { interrupt: { type: 'approval', tool: 42 } }))).toBeNull();
    expect(readInterrupt(run('interrupted', { interrupt: { type: 'clarification' } }))).toBeNull();
    expect(readInterrupt(run('interrupted', { interrupt: 'text' }))).toBeNull();
    expect(readInterrupt(run('interrupted', { interrupt: [approval] }))).toBeNull();
    expect(readInterrupt(null)).toBeNull();
  });
});

describe('runView', () => {
  it('maps each state of the latest run to what the screen shows', async () => {
    expect(runView(null)).toEqual({ kind: 'none' });
    expect(runView(run('pending'))).toEqual({ kind: 'active', label: 'Running…' });
    expect(runView(run('running'))).toEqual({ kind: 'active', label: 'Running…' });
    expect(runView(run('success'))).toEqual({ kind: 'done' });
    expect(runView(run('cancelled'))).toEqual({ kind: 'cancelled' });
    // A team request's cancel ended its approval: the screen says which call no longer waits.
    expect(runView(run('cancelled', { interrupt: { type: 'approval', tool: 'calculator', args: {} } }))).toEqual({ kind: 'cancelled', tool: 'calculator' });
    expect(runView(run('cancelled', { interrupt: { type: 'approval', tool: 'mcp__x', args: {}, mcp: { server: 'Docs', tool: 'search' } } }))).toEqual({ kind: 'cancelled', tool: 'search' });
    // In a batch item's hidden conversation it was the batch's cancel.
    expect(runView(run('cancelled', { interrupt: { type: 'approval', tool: 'calculator', args: {} } }), { batchItem: true })).toEqual({
      kind: 'cancelled',
      tool: 'calculator',
      withBatch: true,
    });
    expect(runView(run('cancelled'), { batchItem: true })).toEqual({ kind: 'cancelled' });
    expect(runView(run('error', { error: 'Model openai:gpt-4.1-mini is not configured: set OPENAI_API_KEY' }))).toEqual({
      kind: 'error',
      message: 'Model openai:gpt-4.1-mini is not configured: set OPENAI_API_KEY',
    });
    expect(runView(run('error', { error: '  ' }))).toEqual({ kind: 'error', message: 'The run failed without an error message.' });
    expect(runView(run('interrupted', { interrupt: { type: 'approval', tool: 't', args: {} } })).kind).toBe('approval');
    expect(runView(run('interrupted', { interrupt: { type: 'clarification', question: 'Q?', questionId: 'q' } })).kind).toBe('clarification');
    expect(runView(run('interrupted', { interrupt: { type: 'something_new' } }))).toEqual({ kind: 'waiting' });
  });
});

describe('laterRun', () => {
  it("prefers the POST's run when it is a different (newer) run", async () => {
    expect(laterRun(run('success', { id: 'old' }), run('pending', { id: 'new' })).id).toBe('new');
    expect(laterRun(null, run('pending')).status).toBe('pending');
  });

  it('for the same run keeps the reading further along its lifecycle', async () => {
    // A poll read it running after the POST said pending: keep running.
    expect(laterRun(run('running'), run('pending')).status).toBe('running');
    expect(laterRun(run('success'), run('pending')).status).toBe('success');
    // A poll started before Cancel still said running: the cancel answer wins.
    expect(laterRun(run('running'), run('cancelled')).status).toBe('cancelled');
    expect(laterRun(run('pending'), run('running')).status).toBe('running');
  });
});
