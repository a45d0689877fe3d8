import { describe, expect, it } from 'vitest';
import { formatElapsed, modelWaitSince } from '@/components/runs/model-wait';
import type { ApiRunEvent, RunEventData } from '@/lib/types/run-events';

let seq = 0;
const ev = (data: RunEventData, at = `2026-12-01T07:00:${String(seq).padStart(2, '0')}.000Z`): ApiRunEvent => ({ ...data, runId: 'r1', seq: ++seq, at }) as ApiRunEvent;
const started = () => ev({ type: 'run.started', kind: 'start', model: 'scripted', fingerprint: null });
const call = (...ids: string[]) => ev({ type: 'step.assistant', text: '', toolCalls: ids.map((id) => ({ id, name: 'calculator', args: '{}' })) });
const result = (id: string) => ev({ type: 'step.tool', toolCallId: id, tool: 'calculator', result: '42', durationMs: 3, status: 'success', receipt: 'r1' } as RunEventData);

/*
 * When the Steps panel shows a pending "Waiting for the model…" step. What must not happen: nothing shown while a
 * model call is in flight (the trial's complaint), or the step shown while a tool still runs, while the run waits for
 * the person, or after the answer.
 */
describe('modelWaitSince', () => {
  it('waits for the model from the start of a run, after every tool result of a call is in, after a retried failure or a summary', () => {
    const s = started();
    expect(modelWaitSince([s])).toBe(s.at);
    const both = [s, ev({ type: 'model.call', model: 'scripted', latencyMs: 5 }), call('a', 'b'), result('a')];
    expect(modelWaitSince(both)).toBeNull();
    const done = result('b');
    expect(modelWaitSince([...both, done])).toBe(done.at);
    const failed = ev({ type: 'model.call', model: 'scripted', latencyMs: 5, error: 'overloaded', attempt: 1 });
    expect(modelWaitSince([s, failed])).toBe(failed.at);
    const summary = ev({ type: 'compaction', removed: [{ id: 'm1', hash: 'abc' }], tokensBefore: 100, tokensAfter: 10, counter: 'estimate', summaryMessageId: 'm9' });
    expect(modelWaitSince([s, summary])).toBe(summary.at);
    const queued = ev({ type: 'model.wait', model: 'scripted', reason: 'queue', ahead: 2 } as RunEventData);
    expect(modelWaitSince([s, queued])).toBe(queued.at);
  });

  it('does not wait for the model while a tool runs, the person is asked, or once the model answered', () => {
    const s = started();
    expect(modelWaitSince([])).toBeNull();
    expect(modelWaitSince([s, call('a')])).toBeNull();
    expect(modelWaitSince([s, ev({ type: 'model.call', model: 'scripted', latencyMs: 5 })])).toBeNull();
    expect(modelWaitSince([s, call()])).toBeNull();
    expect(modelWaitSince([s, call('a'), ev({ type: 'interrupt', interrupt: { type: 'approval', tool: 'calculator' } })])).toBeNull();
    // Approved: the tool runs first; its result is when the model is asked again.
    const resumed = [s, call('a'), ev({ type: 'interrupt', interrupt: { type: 'approval', tool: 'calculator' } }), ev({ type: 'resume', value: { approved: true } })];
    expect(modelWaitSince(resumed)).toBeNull();
    expect(modelWaitSince([...resumed, result('a')])).not.toBeNull();
    expect(modelWaitSince([s, call(), ev({ type: 'run.finished', outcome: 'completed' })])).toBeNull();
  });
});

describe('formatElapsed', () => {
  it('counts whole seconds, then minutes, and never below zero', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(42_900)).toBe('42 s');
    expect(formatElapsed(125_000)).toBe('2 min 5 s');
    expect(formatElapsed(-3_000)).toBe('0 s');
  });
});
