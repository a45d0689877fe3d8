import { describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { FOREIGN_TURN, MARKER_MISSING, attributeResult } from '@/server/teams/attribution';

const human = (jobId: string | null, text = 'task') =>
  new HumanMessage({ content: text, additional_kwargs: jobId ? { ensemble: { jobId, runId: 'r' } } : {} });

describe('result attribution', () => {
  it('takes the last assistant text after the job’s own turns', () => {
    const messages = [human(null, 'earlier chat'), new AIMessage('old answer'), human('j1'), new AIMessage({ content: '', tool_calls: [{ id: 't', name: 'ask_clarification', args: { question: 'q' } }] }), new ToolMessage({ content: 'asked', tool_call_id: 't' }), human('j1', 'answer'), new AIMessage('the answer')];
    expect(attributeResult(messages, 'j1')).toEqual({ ok: true, text: 'the answer' });
  });

  it('fails when the marker is gone', () => {
    expect(attributeResult([human(null), new AIMessage('foreign')], 'j1')).toEqual({ ok: false, error: MARKER_MISSING });
  });

  it('fails when a later human turn came from elsewhere, never reporting its text', () => {
    const result = attributeResult([human('j1'), new AIMessage('mine'), human(null, 'someone typed'), new AIMessage('foreign answer')], 'j1');
    expect(result).toEqual({ ok: false, error: FOREIGN_TURN });
    const otherJob = attributeResult([human('j1'), human('j2'), new AIMessage('for j2')], 'j1');
    expect(otherJob.ok).toBe(false);
  });

  it('fails when the turn ended without a final answer', () => {
    const result = attributeResult([human('j1'), new AIMessage({ content: '', tool_calls: [{ id: 't', name: 'calculator', args: {} }] })], 'j1');
    expect(result.ok).toBe(false);
  });
});
