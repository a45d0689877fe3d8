import { describe, expect, it } from 'vitest';
import { noticesFor, seenJobs } from '@/components/teams/notifications';
import { tabTitle } from '@/components/teams/use-tab-title';
import type { ApiJob, ApiMember, JobStatus } from '@/lib/types/team';

describe('tabTitle', () => {
  it('counts the jobs that need the person’s input, and drops the count at zero', () => {
    expect(tabTitle('Release', 2)).toBe('(2) Release · Ensemble');
    expect(tabTitle('Release', 1)).toBe('(1) Release · Ensemble');
    expect(tabTitle('Release', 0)).toBe('Release · Ensemble');
  });

  it('never shows a negative, fractional or non-number count; names stay as written (CJK, emoji)', () => {
    expect(tabTitle('研究 🚀', -1)).toBe('研究 🚀 · Ensemble');
    expect(tabTitle('R', Number.NaN)).toBe('R · Ensemble');
    expect(tabTitle('R', 2.7)).toBe('(2) R · Ensemble');
    expect(tabTitle('<b>x</b>', 3)).toBe('(3) <b>x</b> · Ensemble');
  });
});

const member = (id: string, name: string): ApiMember => ({ id, name, agentId: `a-${id}`, agentName: name, conversationId: `c-${id}`, status: 'ready' });
const members = new Map([member('m1', 'Ada'), member('m2', '研究')].map((m) => [m.id, m]));
const job = (id: string, seq: number, status: JobStatus, extra: Partial<ApiJob> = {}): ApiJob => ({
  id,
  seq,
  kind: 'request',
  memberId: 'm1',
  conversationId: 'c-m1',
  status,
  createdAt: '2026-12-01T00:00:00.000Z',
  completedAt: null,
  sourceMemberId: null,
  sourceConversationId: null,
  parentId: null,
  rootId: id,
  receipt: null,
  ...extra,
});

describe('noticesFor', () => {
  it('says nothing on the first view, however many jobs wait or finished', () => {
    expect(noticesFor(null, [job('a', 1, 'waiting_input'), job('b', 2, 'completed')], members, 'T')).toEqual([]);
  });

  it('notices a request that starts waiting for input, finishes or fails — once each', () => {
    const before = seenJobs([job('a', 1, 'running'), job('b', 2, 'running'), job('c', 3, 'queued', { memberId: 'm2' })]);
    const now = [job('a', 1, 'waiting_input'), job('b', 2, 'completed'), job('c', 3, 'failed', { memberId: 'm2' })];
    expect(noticesFor(before, now, members, 'Release')).toEqual([
      { tag: 'a:waiting', title: 'Release', body: 'Ada needs your answer' },
      { tag: 'b:completed', title: 'Release', body: 'Ada finished a request' },
      { tag: 'c:failed', title: 'Release', body: '研究’s request failed' },
    ]);
    // The same view again: nothing new.
    expect(noticesFor(seenJobs(now), now, members, 'Release')).toEqual([]);
  });

  it('notices a new request that is already waiting or done, but not an older one loaded by scrolling back', () => {
    const before = seenJobs([job('x', 10, 'running')]);
    const now = [job('old', 4, 'waiting_input'), job('older', 3, 'completed'), job('x', 10, 'running'), job('new', 11, 'waiting_input')];
    expect(noticesFor(before, now, members, 'T').map((n) => n.tag)).toEqual(['new:waiting']);
  });

  it('is quiet for cancellations, for receipts, and for moves between unfinished states', () => {
    const before = seenJobs([job('a', 1, 'running'), job('r', 2, 'running', { kind: 'receipt' }), job('q', 3, 'queued'), job('w', 4, 'waiting_input')]);
    const now = [job('a', 1, 'cancelled'), job('r', 2, 'completed', { kind: 'receipt' }), job('q', 3, 'running'), job('w', 4, 'resuming')];
    expect(noticesFor(before, now, members, 'T')).toEqual([]);
  });

  it('a request that waits again after an answer notices again; a removed member is "A member"', () => {
    const before = seenJobs([job('a', 1, 'resuming', { memberId: 'gone' })]);
    expect(noticesFor(before, [job('a', 1, 'waiting_input', { memberId: 'gone' })], members, 'T')).toEqual([{ tag: 'a:waiting', title: 'T', body: 'A member needs your answer' }]);
  });
});
