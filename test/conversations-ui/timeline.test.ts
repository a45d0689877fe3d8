import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { awaitingApprovalCallId, buildTimeline, timelineSignature, type TimelineItem } from '@/components/conversations/timeline';
import type { Message } from '@/components/conversations/types';

const user = (id: string, text: string): Message => ({ id, role: 'user', text });
const assistant = (id: string, text: string, calls: Array<[string, string, Record<string, unknown>]> = []): Message => ({
  id,
  role: 'assistant',
  text,
  toolCalls: calls.map(([cid, name, args]) => ({ id: cid, name, args })),
});
const tool = (id: string, toolCallId: string, text: string, toolName = 'calculator'): Message => ({ id, role: 'tool', text, toolCallId, toolName });

describe('buildTimeline', () => {
  it('puts each tool result under the call it answers', async () => {
    const items = buildTimeline([
      user('u1', 'add please'),
      assistant('a1', '', [
        ['c1', 'calculator', { expression: '1+1' }],
        ['c2', 'current_time', {}],
      ]),
      tool('t2', 'c2', '2026-01-01T00:00:00Z', 'current_time'),
      tool('t1', 'c1', '2'),
      assistant('a2', 'It is **2**.'),
    ]);
    expect(items.map((i) => `${i.kind}:${i.id}`)).toEqual(['user:u1', 'assistant:a1', 'assistant:a2']);
    const a1 = items[1] as Extract<TimelineItem, { kind: 'assistant' }>;
    expect(a1.toolCalls.map((c) => [c.name, c.result?.id ?? null])).toEqual([
      ['calculator', 't1'],
      ['current_time', 't2'],
    ]);
    expect(a1.toolCalls[0]?.args).toEqual({ expression: '1+1' });
  });

  it('a batch’s end message carries its batch, to be linked; a person’s message that merely says batchId does not', async () => {
    const ended: Message = {
      id: 'u2',
      role: 'user',
      text: 'The batch you started (batch_task) has ended. Its summary, as data: {}',
      meta: { kind: 'batch_result', batchId: 'b-1' },
      provenance: { contentKind: 'receipt', producer: { type: 'framework' } },
    };
    const [item, plain] = buildTimeline([ended, { ...user('u3', '{"batchId":"b-2"}'), meta: { batchId: 'b-2' } }]);
    expect(item).toMatchObject({ kind: 'user', batchId: 'b-1' });
    expect(plain).not.toHaveProperty('batchId');
  });

  it('leaves a call without a result open (a tool awaiting approval)', async () => {
    const items = buildTimeline([user('u1', 'go'), assistant('a1', 'Let me check.', [['c1', 'calculator', { expression: '2*3' }]])]);
    const a1 = items[1] as Extract<TimelineItem, { kind: 'assistant' }>;
    expect(a1.text).toBe('Let me check.');
    expect(a1.toolCalls[0]?.result).toBeNull();
  });

  it('keeps tool results whose call is unknown, and a second result for the same call, as their own entries', async () => {
    const items = buildTimeline([
      tool('t0', 'missing', 'orphan'),
      assistant('a1', '', [['c1', 'calculator', {}]]),
      tool('t1', 'c1', 'first'),
      tool('t1b', 'c1', 'duplicate'),
      { id: 't3', role: 'tool', text: 'no call id' },
    ]);
    expect(items.map((i) => `${i.kind}:${i.id}`)).toEqual(['tool:t0', 'assistant:a1', 'tool:t1b', 'tool:t3']);
  });

  it('never drops or duplicates a message', async () => {
    const message = fc.oneof(
      fc.record({ id: fc.uuid(), role: fc.constant('user' as const), text: fc.string() }),
      fc.record({
        id: fc.uuid(),
        role: fc.constant('assistant' as const),
        text: fc.string(),
        toolCalls: fc.array(fc.record({ id: fc.constantFrom('c1', 'c2', 'c3'), name: fc.string(), args: fc.constant({}) }), { maxLength: 3 }),
      }),
      fc.record({ id: fc.uuid(), role: fc.constant('tool' as const), text: fc.string(), toolCallId: fc.constantFrom('c1', 'c2', 'c3', 'c4') }),
    );
    fc.assert(
      fc.property(fc.uniqueArray(message, { selector: (m) => m.id, maxLength: 20 }), (messages) => {
        const items = buildTimeline(messages);
        const seen: string[] = [];
        for (const item of items) {
          if (item.kind === 'tool') seen.push(item.message.id);
          else seen.push(item.id);
          if (item.kind === 'assistant') for (const c of item.toolCalls) if (c.result) seen.push(c.result.id);
        }
        expect(seen.sort()).toEqual(messages.map((m) => m.id).sort());
      }),
    );
  });
});

describe('timelineSignature', () => {
  it('changes when a message is added or the last one grows, not otherwise', async () => {
    const a = [user('u1', 'hi')];
    const b = [user('u1', 'hi'), assistant('a1', 'Hel')];
    const c = [user('u1', 'hi'), assistant('a1', 'Hello')];
    expect(timelineSignature([])).toBe('0');
    expect(timelineSignature(a)).toBe(timelineSignature([user('u1', 'hi')]));
    expect(new Set([timelineSignature(a), timelineSignature(b), timelineSignature(c)]).size).toBe(3);
  });
});

describe('awaitingApprovalCallId', () => {
  it('finds the newest unanswered call of the tool the approval names', async () => {
    const items = buildTimeline([
      assistant('a1', '', [['c1', 'calculator', {}]]),
      tool('t1', 'c1', '2'),
      assistant('a2', '', [
        ['c2', 'current_time', {}],
        ['c3', 'calculator', { expression: '6*7' }],
      ]),
    ]);
    expect(awaitingApprovalCallId(items, 'calculator')).toBe('c3');
    expect(awaitingApprovalCallId(items, 'current_time')).toBe('c2');
    expect(awaitingApprovalCallId(items, 'web_search')).toBeNull();
  });
});
