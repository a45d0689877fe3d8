import { describe, expect, it } from 'vitest';
import { formatArgs, formatDuration, formatTokens, stepItem, stepItems, stopReasonText, type StepItem } from '@/components/runs/step-items';
import type { ApiRunEvent, RunEventData } from '@/lib/types/run-events';

let seq = 0;
const ev = (data: RunEventData): ApiRunEvent => ({ ...data, runId: 'r1', seq: ++seq, at: '2026-12-01T07:00:00.000Z' }) as ApiRunEvent;
const of = <K extends StepItem['kind']>(item: StepItem, kind: K) => {
  expect(item.kind).toBe(kind);
  return item as Extract<StepItem, { kind: K }>;
};

describe('stepItem', () => {
  it("an MCP server the run could not use is a warning naming its id, and what to do about it", () => {
    const id = 'a91dea21-78ac-4a3a-8926-fcb383a701ac';
    const item = of(stepItem(ev({ type: 'tools.unavailable', mcpServers: [id] })), 'notice');
    expect(item.tone).toBe('warning');
    expect(item.title).toBe(`MCP server “${id}” no longer exists or is not yours to use; its tools were not offered`);
    expect(item.detail).toBe(`Server ${id}: edit the agent to take it out of its MCP tools.`);
  });

  it('a model call shows its model, tokens in and out and its latency', () => {
    const item = of(stepItem(ev({ type: 'model.call', model: 'openai:gpt-x', inputTokens: 1234, outputTokens: 56, latencyMs: 340, finishReason: 'stop' })), 'model');
    expect(item.title).toBe('Model call · openai:gpt-x');
    expect(item.detail).toBe('1,234 in · 56 out · 340 ms · finish: stop');
    expect(item.error).toBeNull();
  });

  it('absent token figures say "not reported", never zero', () => {
    const none = of(stepItem(ev({ type: 'model.call', model: 'm', latencyMs: 1500 })), 'model');
    expect(none.detail).toBe('tokens not reported · 1.5 s');
    const half = of(stepItem(ev({ type: 'model.call', model: 'm', inputTokens: 10, latencyMs: 2 })), 'model');
    expect(half.detail).toBe('10 in · not reported out · 2 ms');
    const zero = of(stepItem(ev({ type: 'model.call', model: 'm', inputTokens: 0, outputTokens: 0, latencyMs: 2 })), 'model');
    expect(zero.detail).toBe('0 in · 0 out · 2 ms');
  });

  it('a system summary call and a failed call are marked as such', () => {
    const sys = of(stepItem(ev({ type: 'model.call', model: 'm', latencyMs: 5, system: 'summary' })), 'model');
    expect(sys.title).toBe('System model call (summary) · m');
    const failed = of(stepItem(ev({ type: 'model.call', model: 'm', latencyMs: 5, error: 'rate limited' })), 'model');
    expect(failed.tone).toBe('danger');
    expect(failed.error).toBe('rate limited');
  });

  it('an assistant step keeps its text as plain text and lists each tool call with indented arguments', () => {
    const item = of(
      stepItem(
        ev({
          type: 'step.assistant',
          text: '<img src=x onerror=alert(1)> thinking',
          toolCalls: [
            { id: 'c1', name: 'calculator', args: '{"expression":"1+2"}' },
            { id: 'c2', name: 'current_time', args: '{"timeZone":"Eur', truncated: true },
          ],
        }),
      ),
      'assistant',
    );
    expect(item.title).toBe('Assistant called calculator, current_time');
    expect(item.text).toBe('<img src=x onerror=alert(1)> thinking');
    expect(item.toolCalls).toEqual([
      { id: 'c1', name: 'calculator', args: '{\n  "expression": "1+2"\n}', truncated: false },
      { id: 'c2', name: 'current_time', args: '{"timeZone":"Eur', truncated: true },
    ]);
    const reply = of(stepItem(ev({ type: 'step.assistant', text: 'x'.repeat(2000), truncated: true, toolCalls: [] })), 'assistant');
    expect(reply.title).toBe('Assistant replied');
    expect(reply.truncated).toBe(true);
  });

  it('a tool result shows its tool, status and duration', () => {
    const ok = of(stepItem(ev({ type: 'step.tool', toolCallId: 'c1', tool: 'calculator', result: '3', durationMs: 12, status: 'success' })), 'tool');
    expect([ok.title, ok.detail, ok.result, ok.tone, ok.truncated]).toEqual(['Tool calculator returned', '12 ms', '3', 'success', false]);
    const bad = of(
      stepItem(ev({ type: 'step.tool', toolCallId: 'c2', tool: 'calculator', result: 'Division by zero', durationMs: 61_000, status: 'error', truncated: true })),
      'tool',
    );
    expect([bad.title, bad.detail, bad.tone, bad.truncated]).toEqual(['Tool calculator failed', '1 min 1 s', 'danger', true]);
    const cited = of(stepItem(ev({ type: 'step.tool', toolCallId: 'c3', tool: 'calculator', result: '4', durationMs: 5, status: 'success', receipt: 'r3' })), 'tool');
    expect(cited.detail).toBe('Receipt r3 · 5 ms');
    // The person's decline is not the tool failing: it says who stopped it, in the warning tone.
    const declined = of(stepItem(ev({ type: 'step.tool', toolCallId: 'c4', tool: 'calculator', result: 'The person declined…', durationMs: 0, status: 'error', declined: true })), 'tool');
    expect([declined.title, declined.tone]).toEqual(['Tool calculator declined by you', 'warning']);
    // An MCP tool's call names the tool as its server calls it, and the server (in a chat and on a team's job alike).
    const mcp = of(stepItem(ev({ type: 'step.tool', toolCallId: 'c5', tool: 'mcp_0123abcd_shout', result: 'HI', durationMs: 3, status: 'success', mcp: { server: 'Stub', tool: 'shout' } })), 'tool');
    expect(mcp.title).toBe('Tool shout of MCP server Stub returned');
    expect(ok.batchId).toBeNull();
  });

  it('a batch_task result names its batch, to be linked, even when the step cut the summary short', () => {
    const summary = '{"batchId":"0b7e-41","status":"completed","total":3,"counts":{"done":3}}';
    const done = of(stepItem(ev({ type: 'step.tool', toolCallId: 'b1', tool: 'batch_task', result: summary, durationMs: 9, status: 'success' })), 'tool');
    expect(done.batchId).toBe('0b7e-41');
    const cut = of(stepItem(ev({ type: 'step.tool', toolCallId: 'b2', tool: 'batch_task', result: summary.slice(0, 30), durationMs: 9, status: 'success', truncated: true })), 'tool');
    expect(cut.batchId).toBe('0b7e-41');
    // An error names no batch; nor does another tool whose text looks like one.
    const failed = of(stepItem(ev({ type: 'step.tool', toolCallId: 'b3', tool: 'batch_task', result: '{"error":"batch_limit"}', durationMs: 1, status: 'error' })), 'tool');
    expect(failed.batchId).toBeNull();
    const other = of(stepItem(ev({ type: 'step.tool', toolCallId: 'b4', tool: 'calculator', result: summary, durationMs: 1, status: 'success' })), 'tool');
    expect(other.batchId).toBeNull();
    // An id that could leave the path is not taken.
    const odd = of(stepItem(ev({ type: 'step.tool', toolCallId: 'b5', tool: 'batch_task', result: '{"batchId":"../admin"}', durationMs: 1, status: 'success' })), 'tool');
    expect(odd.batchId).toBeNull();
  });

  it('interrupts and resumes say what was asked and answered', () => {
    expect(stepItem(ev({ type: 'interrupt', interrupt: { type: 'approval', tool: 'calculator', args: {} } })).title).toBe('Waiting for approval: calculator');
    const ask = of(stepItem(ev({ type: 'interrupt', interrupt: { type: 'clarification', question: 'Which tone?', questionId: 'q' } })), 'interrupt');
    expect([ask.title, ask.detail]).toEqual(['Asked the person a question', 'Which tone?']);
    expect(stepItem(ev({ type: 'interrupt', interrupt: 42 })).title).toBe('Waiting for input');
    const mcp = { type: 'approval', tool: 'mcp_0123abcd_shout', args: {}, mcp: { server: 'Stub', tool: 'shout' } };
    expect(stepItem(ev({ type: 'interrupt', interrupt: mcp })).title).toBe('Waiting for approval: shout of MCP server Stub');
    expect(of(stepItem(ev({ type: 'resume', value: { approved: false, note: ' Not now ' } })), 'resume').detail).toBe('Declined — Not now');
    expect(of(stepItem(ev({ type: 'resume', value: { approved: true } })), 'resume').detail).toBe('Approved');
    expect(of(stepItem(ev({ type: 'resume', value: 'Friendly' })), 'resume').detail).toBe('Answered: Friendly');
    expect(of(stepItem(ev({ type: 'resume', value: null })), 'resume').detail).toBe('Answered');
  });

  it('compaction says how many messages were summarized and the tokens before → after', () => {
    const removed = Array.from({ length: 12 }, (_, i) => ({ id: `m${i}`, hash: 'abcd' }));
    const item = of(
      stepItem(ev({ type: 'compaction', removed, tokensBefore: 30_500, tokensAfter: 4_200, counter: 'estimate', summaryMessageId: 's' })),
      'compaction',
    );
    expect(item.title).toBe('Earlier turns summarized');
    expect(item.detail).toBe('12 messages, tokens 30,500 → 4,200 (estimated)');
    const one = of(
      stepItem(ev({ type: 'compaction', removed: removed.slice(0, 1), tokensBefore: 10, tokensAfter: 5, counter: 'tokenizer', summaryMessageId: 's' })),
      'compaction',
    );
    expect(one.detail).toBe('1 message, tokens 10 → 5');
  });

  it('the run’s start and end say how it started and how it ended', () => {
    expect(stepItem(ev({ type: 'run.started', kind: 'continue', model: 'scripted', fingerprint: null })).title).toBe('Run continued after a restart');
    const done = of(stepItem(ev({ type: 'run.finished', outcome: 'completed' })), 'finished');
    expect([done.title, done.tone, done.detail, done.error]).toEqual(['Run completed', 'success', '', null]);
    const capped = of(stepItem(ev({ type: 'run.finished', outcome: 'failed', error: 'Stopped after 1 minutes', stopReason: 'time_capped' })), 'finished');
    expect([capped.title, capped.detail, capped.error]).toEqual(['Run failed (capped: time)', 'Stopped early (capped: time)', 'Stopped after 1 minutes']);
    const removed = of(
      stepItem(ev({ type: 'step.assistant', text: '', toolCalls: [], removedToolCalls: [{ id: 'c1', name: 'calculator', args: '{}' }], stopReason: 'loop_capped' })),
      'assistant',
    );
    expect([removed.title, removed.tone]).toEqual(['Assistant replied; not run: calculator (capped: loop)', 'warning']);
    const loop = of(stepItem(ev({ type: 'run.finished', outcome: 'completed', stopReason: 'loop_capped' })), 'finished');
    expect([loop.title, loop.tone, loop.detail]).toEqual(['Run completed (capped: loop)', 'success', 'Stopped early (capped: loop)']);
    expect(stepItem(ev({ type: 'run.finished', outcome: 'cancelled' })).title).toBe('Run cancelled');
    expect(stepItem(ev({ type: 'run.finished', outcome: 'interrupted' })).title).toBe('Run paused for input');
  });

  it('an event type this page does not know is shown by name, not dropped', () => {
    const item = stepItem({ runId: 'r1', seq: 99, at: '2026-12-01T07:00:00.000Z', type: 'delegation.started' } as unknown as ApiRunEvent);
    expect(item.kind).toBe('other');
    expect(item.title).toBe('Event delegation.started');
  });

  it('keeps the events’ order and gives each a unique key', () => {
    const events = [ev({ type: 'run.started', kind: 'start', model: 'm', fingerprint: 'f' }), ev({ type: 'run.finished', outcome: 'completed' })];
    const items = stepItems(events);
    expect(items.map((i) => i.seq)).toEqual(events.map((e) => e.seq));
    expect(new Set(items.map((i) => i.key)).size).toBe(2);
  });
});

describe('formatting helpers', () => {
  it('formats durations at their boundaries', () => {
    expect([formatDuration(0), formatDuration(999), formatDuration(999.6), formatDuration(1000), formatDuration(59_940), formatDuration(59_999), formatDuration(60_000), formatDuration(119_600)]).toEqual([
      '0 ms',
      '999 ms',
      '1.0 s',
      '1.0 s',
      '59.9 s',
      '1 min 0 s',
      '1 min 0 s',
      '2 min 0 s',
    ]);
    expect(formatDuration(-1)).toBe('—');
  });
  it('formats tokens and arguments', () => {
    expect(formatTokens(undefined)).toBe('not reported');
    expect(formatTokens(1_000_000)).toBe('1,000,000');
    expect(formatArgs('not json')).toBe('not json');
    expect(formatArgs('{}')).toBe('{}');
  });
  it('stop reasons', () => {
    expect(stopReasonText(null)).toBe('');
    expect(stopReasonText('budget_reached')).toBe('Stopped early (capped: budget reached)');
    expect(stopReasonText('turn_capped')).toBe('Stopped early (capped: turns)');
  });
});
