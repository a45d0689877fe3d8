import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { mergeChangedIds } from '@/server/push/event-stream';
import { mergeConversationPush } from '@/server/push/conversation-stream';
import { mergeTeamPush } from '@/server/push/team-stream';

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const max = LIMITS.activity.maxLimit;

describe('mergeChangedIds: two unsent messages’ changed ids as one', () => {
  it('is the union, each id once', () => {
    expect(mergeChangedIds(['a', 'b'], ['b', 'c'])).toEqual(['a', 'b', 'c']);
    expect(mergeChangedIds([], [])).toEqual([]);
  });

  it('lists exactly the limit, and one past it is null (re-read), never a cut list', () => {
    expect(mergeChangedIds(ids('a', max - 1), ['z'])).toHaveLength(max);
    // Must not happen: a list silently missing a change (the client would never read it).
    expect(mergeChangedIds(ids('a', max), ['z'])).toBeNull();
  });

  it('an unknown side makes the whole unknown', () => {
    expect(mergeChangedIds(null, ['a'])).toBeNull();
    expect(mergeChangedIds(['a'], null)).toBeNull();
  });

  it('both streams merge through it: the later id or revision, the union of what changed', () => {
    const conversation = mergeConversationPush(
      { id: '3', event: 'conversation', data: { conversationId: 'c', runIds: ['r1'] } },
      { id: '5', event: 'conversation', data: { conversationId: 'c', runIds: ['r2'] } },
    );
    expect(conversation).toEqual({ id: '5', event: 'conversation', data: { conversationId: 'c', runIds: ['r1', 'r2'] } });
    const team = mergeTeamPush(
      { id: '7', event: 'team', data: { teamId: 't', revision: 7, jobIds: ids('j', max) } },
      { id: '8', event: 'team', data: { teamId: 't', revision: 8, jobIds: ['k'] } },
    );
    expect(team).toEqual({ id: '8', event: 'team', data: { teamId: 't', revision: 8, jobIds: null } });
  });
});
