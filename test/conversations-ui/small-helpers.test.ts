import { describe, expect, it } from 'vitest';
import { approvalValue, noteError } from '@/components/approvals/approval';
import { conversationLabel, sortByUpdated } from '@/components/conversations/list-format';
import { visibleEcho } from '@/components/conversations/pending-echo';
import { isNearBottom } from '@/components/conversations/scroll';
import type { Message, Run } from '@/components/conversations/types';

describe('isNearBottom', () => {
  it('is true within the threshold of the end and false further up', async () => {
    expect(isNearBottom({ scrollTop: 900, clientHeight: 100, scrollHeight: 1000 })).toBe(true);
    expect(isNearBottom({ scrollTop: 780, clientHeight: 100, scrollHeight: 1000 })).toBe(true);
    expect(isNearBottom({ scrollTop: 779, clientHeight: 100, scrollHeight: 1000 })).toBe(false);
    expect(isNearBottom({ scrollTop: 0, clientHeight: 500, scrollHeight: 400 })).toBe(true);
  });
});

describe('visibleEcho', () => {
  const run = (id: string, status: Run['status']) => ({ id, status }) as Run;
  const echo = { text: 'hello', runId: 'r2', baseCount: 2 };
  const before: Message[] = [
    { id: 'u1', role: 'user', text: 'earlier' },
    { id: 'a1', role: 'assistant', text: 'ok' },
  ];

  it('shows the sent text until the history has a new user turn', async () => {
    expect(visibleEcho(echo, before, run('r2', 'pending'))).toBe(echo);
    expect(visibleEcho(echo, [...before, { id: 'u2', role: 'user', text: 'hello' }], run('r2', 'running'))).toBeNull();
  });

  it('disappears once its run finished or another run is latest', async () => {
    expect(visibleEcho(echo, before, run('r2', 'error'))).toBeNull();
    expect(visibleEcho(echo, before, run('r3', 'running'))).toBeNull();
    expect(visibleEcho(echo, before, null)).toBeNull();
    expect(visibleEcho(null, before, run('r2', 'running'))).toBeNull();
  });
});

describe('approval answers', () => {
  it('leaves an empty note out and trims a real one', async () => {
    expect(approvalValue(true, '   ')).toEqual({ approved: true });
    expect(approvalValue(false, '  not this one \n')).toEqual({ approved: false, note: 'not this one' });
  });

  it('bounds the note like an answer: 4,000 characters and 8,000 bytes', async () => {
    expect(noteError('a'.repeat(4000))).toBeNull();
    expect(noteError('a'.repeat(4001))).toMatch(/too long/);
    expect(noteError('😀'.repeat(1990))).toBeNull();
    expect(noteError('😀'.repeat(2001))).toMatch(/too long/);
    expect(noteError('漢'.repeat(2667))).toMatch(/too long/);
    expect(noteError('x\uDC00')).toMatch(/invalid character/);
  });

  it('refuses a note whose JSON escaping would push the answer past 8,000 bytes', async () => {
    // 4,000 quotes are 4,000 bytes of text but 8,000 bytes once escaped in JSON.
    expect(noteError('"'.repeat(4000))).toBe('Note is too long to send.');
    // 2,000 emoji are exactly 8,000 bytes of note, but the answer around them adds a few more.
    expect(noteError('😀'.repeat(2000))).toBe('Note is too long to send.');
  });
});

describe('conversation list helpers', () => {
  it('labels a conversation by its title, cut to one line, or says it is empty', async () => {
    expect(conversationLabel({ title: '  Plan\n the   trip ' })).toBe('Plan the trip');
    expect(conversationLabel({ title: '' })).toBe('No messages yet');
    expect(conversationLabel({ title: 'x'.repeat(200) }, 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('sorts newest first without mutating the input', async () => {
    const list = [
      { id: 'a', updatedAt: '2026-01-01T00:00:00Z' },
      { id: 'b', updatedAt: '2026-02-01T00:00:00Z' },
    ];
    expect(sortByUpdated(list).map((c) => c.id)).toEqual(['b', 'a']);
    expect(list.map((c) => c.id)).toEqual(['a', 'b']);
  });
});
