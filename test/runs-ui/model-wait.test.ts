import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LiveOutput } from '@/components/live-output/store';
import { followWait, formatElapsed, modelWaitSince, pendingStep, streamedSignature, type WaitBaseline } from '@/components/runs/model-wait';
import { PendingStepItem } from '@/components/runs/model-wait-step';
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
    // A note that an MCP server's tools were not offered follows the start; the model is asked next all the same.
    const note = ev({ type: 'tools.unavailable', mcpServers: ['a91dea21-78ac-4a3a-8926-fcb383a701ac'] });
    expect(modelWaitSince([s, note])).toBe(note.at);
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

describe('the pending step once the live output streams', () => {
  const out = (text: string, more: Partial<LiveOutput> = {}): LiveOutput => ({ runId: 'r1', text, truncated: false, done: false, retrying: null, ...more });

  /** What the Steps panel shows after each moment: the events recorded and the live output pushed by then. */
  function follow(moments: Array<{ events: ApiRunEvent[]; output?: LiveOutput }>) {
    let wait: WaitBaseline | null = null;
    return moments.map(({ events, output }) => {
      const since = modelWaitSince(events);
      wait = followWait(wait, since, events, streamedSignature(output));
      return pendingStep(since, output, wait.baseline)?.kind ?? null;
    });
  }

  it('says "Writing…" as soon as the first words of the answer stream, not "Waiting for the model…"', () => {
    const s = started();
    expect(follow([{ events: [s] }, { events: [s], output: out('The ') }, { events: [s], output: out('The answer ') }])).toEqual(['waiting', 'writing', 'writing']);
    // Opened mid-answer: nothing was answered in this run yet, so the text can only be this answer's.
    expect(follow([{ events: [s], output: out('The answer ') }])).toEqual(['writing']);
  });

  it("keeps waiting while the output still holds an earlier response's text or a tool's progress, until new text arrives", () => {
    const s = started();
    const asked = [s, ev({ type: 'model.call', model: 'scripted', latencyMs: 5 }), call('a')];
    const answered = [...asked, result('a')];
    const earlier = out('Let me look that up');
    expect(
      follow([
        { events: [s], output: out('Let me look') },
        { events: asked, output: earlier },
        { events: answered, output: earlier },
        // A reconnect sends the same text again: still not this wait's answer.
        { events: answered, output: { ...earlier } },
        { events: answered, output: out('Found ') },
      ]),
    ).toEqual(['writing', null, 'waiting', 'waiting', 'writing']);
    const progress = out('docs/lookup: 1/3\n', { tool: { server: 'docs', tool: 'lookup' } });
    expect(follow([{ events: asked, output: progress }, { events: answered, output: progress }, { events: answered, output: out('Found ') }])).toEqual([null, 'waiting', 'writing']);
  });

  it('names a tool whose progress streams, and waits again through a retry (its text dropped) or once the output is done', () => {
    const s = started();
    expect(pendingStep(s.at, out('docs/lookup: 1/3', { tool: { server: 'docs', tool: 'lookup' } }), null)).toEqual({ kind: 'tool', server: 'docs', tool: 'lookup' });
    expect(pendingStep(s.at, out('', { retrying: { attempt: 2, maxAttempts: 3 } }), null)).toEqual({ kind: 'waiting', since: s.at });
    expect(pendingStep(s.at, out('all of it', { done: true }), null)).toEqual({ kind: 'waiting', since: s.at });
    expect(pendingStep(null, out('words'), null)).toBeNull();
  });

  it('renders the writing and tool steps as plain text, without the waiting timer', () => {
    const writing = renderToStaticMarkup(createElement(PendingStepItem, { step: { kind: 'writing' } }));
    expect(writing).toContain('Writing…');
    expect(writing).not.toContain('Waiting for the model');
    expect(writing).not.toContain('role="timer"');
    const tool = renderToStaticMarkup(createElement(PendingStepItem, { step: { kind: 'tool', server: '<b>docs</b>', tool: 'look&up' } }));
    expect(tool).toContain('Running look&amp;up of MCP server &lt;b&gt;docs&lt;/b&gt;…');
    const waiting = renderToStaticMarkup(createElement(PendingStepItem, { step: { kind: 'waiting', since: new Date().toISOString() } }));
    expect(waiting).toContain('Waiting for the model…');
    expect(waiting).toContain('role="timer"');
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
