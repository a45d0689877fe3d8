import { describe, expect, it } from 'vitest';
import { sendToTargets } from '@/components/teams/job-retry-controls';
import type { ApiMember } from '@/lib/types/team';

const member = (id: string, name: string, conversationId: string | null = `c-${id}`): ApiMember =>
  ({ id, name, agentId: `a-${id}`, agentName: name, conversationId, status: 'ready' });
const roster = new Map([member('m1', 'Asker'), member('m2', 'Failer'), member('m3', 'Backup'), member('m4', 'Creating', null)].map((m) => [m.id, m]));

describe('who "Send to…" offers for a failed request', () => {
  it('leaves out the member that sent it: the server refuses a request sent back to its sender', () => {
    expect(sendToTargets({ memberId: 'm2', sourceMemberId: 'm1' }, roster).map((m) => m.name)).toEqual(['Backup']);
  });

  it('offers every other member with a conversation for the person’s own request', () => {
    expect(sendToTargets({ memberId: 'm2', sourceMemberId: null }, roster).map((m) => m.name)).toEqual(['Asker', 'Backup']);
  });

  it('offers nobody in a team of the sender and the recipient alone', () => {
    const pair = new Map([...roster].filter(([id]) => id === 'm1' || id === 'm2'));
    expect(sendToTargets({ memberId: 'm2', sourceMemberId: 'm1' }, pair)).toEqual([]);
  });
});
