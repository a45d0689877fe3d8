import { describe, expect, it } from 'vitest';
import { askerOf } from '@/components/inbox/inbox-item-card';
import type { InboxItem } from '@/lib/types/inbox';

const teamItem = (memberId: string | null, memberName: string | null, agentName: string | null): InboxItem => ({
  id: 'team:j1',
  where: { source: 'team', teamId: 't1', teamName: 'Launch', jobId: 'j1', memberId, memberName, agentName, conversationId: 'c1' },
  waiting: { type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: {} } },
  since: '2026-12-07T06:00:00.000Z',
});

/*
 * Who asks, in an Inbox card: a team member by its @name; a result returned to the person's chat is answered by that
 * chat's agent, which is no member of the team (it read "A member in team Launch … A member wants to run this tool").
 */
describe('askerOf', () => {
  it('names a member of the team, and the chat’s agent for a result returned to a chat', () => {
    expect(askerOf(teamItem('m1', 'Writer', null))).toBe('@Writer');
    expect(askerOf(teamItem(null, null, 'Careful 慎重 🧐'))).toBe('Careful 慎重 🧐');
    expect(askerOf(teamItem(null, null, ''))).toBe('The chat’s agent');
    expect(askerOf(teamItem('gone', null, null))).toBe('A member');
  });
});
