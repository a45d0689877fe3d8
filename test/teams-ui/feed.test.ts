import { describe, expect, it } from 'vitest';
import type { ApiJob } from '@/lib/types/team';
import {
  canCancel,
  deliveryLine,
  firstWords,
  isLongText,
  jobActor,
  jobHeadline,
  linkedJobId,
  workBadges,
} from '@/components/teams/feed';

const job = (over: Partial<ApiJob> & { id: string }): ApiJob => ({
  seq: 1,
  kind: 'request',
  memberId: 'm1',
  conversationId: 'c1',
  status: 'queued',
  text: 'do it',
  createdAt: '2026-11-30T10:00:00.000Z',
  completedAt: null,
  sourceMemberId: null,
  sourceConversationId: null,
  parentId: null,
  rootId: over.id,
  receipt: null,
  ...over,
});

const members = new Map([
  ['m1', { name: 'Writer' }],
  ['m2', { name: 'Reviewer' }],
]);

describe('feed', () => {
  it('names the sender and recipient', () => {
    expect(jobHeadline(job({ id: 'a' }), members)).toEqual({ from: 'You', to: '@Writer' });
    expect(jobHeadline(job({ id: 'b', memberId: 'm2', sourceMemberId: 'm1' }), members)).toEqual({
      from: 'Writer',
      to: '@Reviewer',
    });
    expect(jobHeadline(job({ id: 'r', kind: 'receipt', memberId: 'm1' }), members)).toEqual({ from: 'Result', to: '@Writer' });
    expect(jobHeadline(job({ id: 'x', memberId: 'gone' }), members)).toEqual({ from: 'You', to: '@a former member' });
  });

  it('names a result returned to an @mentioning chat as going to that conversation, and its agent as who acts, not "You"', () => {
    // Its request reads "A conversation → @Writer"; the approval its chat's agent then asks for read "You wants to run this tool".
    const returned = job({ id: 'c', kind: 'receipt', memberId: null, conversationId: 'chat-1', sourceMemberId: 'm1' });
    expect(jobHeadline(returned, members)).toEqual({ from: 'Result', to: 'A conversation' });
    expect(jobActor(returned, members)).toBe('The conversation’s agent');
    expect(jobActor(job({ id: 'r', kind: 'receipt', memberId: 'm1' }), members)).toBe('@Writer');
    expect(jobActor(job({ id: 'q', memberId: 'm2' }), members)).toBe('@Reviewer');
  });

  it('describes where a handoff result stands', () => {
    const handoff = (status: ApiJob['status']) =>
      job({ id: 'h', memberId: 'm2', sourceMemberId: 'm1', receipt: { id: 'r', status } });
    expect(deliveryLine(handoff('completed'), members)).toBe('Returned to Writer');
    expect(deliveryLine(handoff('queued'), members)).toBe('Reply to Writer: queued');
    expect(deliveryLine(handoff('running'), members)).toBe('Reply to Writer: running');
    expect(deliveryLine(handoff('resuming'), members)).toBe('Reply to Writer: running');
    expect(deliveryLine(handoff('failed'), members)).toBe('Reply to Writer: failed');
    expect(deliveryLine(job({ id: 'p' }), members)).toBeNull();
  });

  it('links a receipt to its request and a handoff to its parent', () => {
    const request = job({ id: 'req', receipt: { id: 'rec', status: 'queued' } });
    const receipt = job({ id: 'rec', kind: 'receipt', parentId: null });
    const handoff = job({ id: 'h', parentId: 'req' });
    expect(linkedJobId(receipt, [receipt, request])).toBe('req');
    expect(linkedJobId(handoff, [handoff, request])).toBe('req');
    expect(linkedJobId(request, [request])).toBeNull();
  });

  it('cuts to the first words', () => {
    expect(firstWords('  Draft   the launch plan  ')).toBe('Draft the launch plan');
    expect(firstWords('one two three four five six seven eight nine')).toBe('one two three four five six seven eight…');
    expect(firstWords('x'.repeat(100), 8, 10)).toBe('xxxxxxxxxx…');
  });

  it('offers cancel only for unfinished jobs', () => {
    expect(['queued', 'running', 'waiting_input', 'resuming'].every((s) => canCancel(s as ApiJob['status']))).toBe(true);
    expect(['completed', 'failed', 'cancelled', 'cancelling'].some((s) => canCancel(s as ApiJob['status']))).toBe(false);
  });

  it('summarizes waiting work for the team list', () => {
    expect(workBadges({ pendingJobs: 0, waitingJobs: 0 })).toEqual([]);
    expect(workBadges({ pendingJobs: 3, waitingJobs: 1 }).map((b) => b.label)).toEqual(['1 waiting for input', '2 in progress']);
    expect(workBadges({ pendingJobs: 2, waitingJobs: 2 }).map((b) => b.label)).toEqual(['2 waiting for input']);
  });

  it('collapses long texts', () => {
    expect(isLongText('short')).toBe(false);
    expect(isLongText('x'.repeat(401))).toBe(true);
    expect(isLongText('1\n2\n3\n4\n5\n6\n7')).toBe(true);
  });
});
