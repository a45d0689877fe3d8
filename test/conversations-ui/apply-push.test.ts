import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyConversationPush } from '@/components/conversations/apply-push';
import { conversationKeys } from '@/components/conversations/queries';
import { runKeys } from '@/components/runs/queries';

/** A cache holding this conversation's entries, another conversation's, and two runs with their events. */
function cache() {
  const client = new QueryClient();
  const keys = [
    conversationKeys.state('c1'),
    conversationKeys.mentionTargets('c1'),
    conversationKeys.state('c2'),
    conversationKeys.list(),
    runKeys.detail('r1'),
    runKeys.events('r1'),
    runKeys.detail('r2'),
  ];
  for (const key of keys) client.setQueryData(key, { seeded: true });
  const invalid = () =>
    client
      .getQueryCache()
      .getAll()
      .filter((q) => q.state.isInvalidated)
      .map((q) => q.queryKey);
  return { client, invalid };
}

const msg = (data: unknown) => JSON.stringify(data);

describe('applyConversationPush', () => {
  it('runs that changed: the state (exactly) and those runs with their events, nothing else', async () => {
    const { client, invalid } = cache();
    expect(applyConversationPush(client, 'c1', msg({ conversationId: 'c1', runIds: ['r1'] }))).toBe(true);
    expect(invalid()).toEqual([conversationKeys.state('c1'), runKeys.detail('r1'), runKeys.events('r1')]);
  });

  it('"re-read" (null): the state only', async () => {
    const { client, invalid } = cache();
    expect(applyConversationPush(client, 'c1', msg({ conversationId: 'c1', runIds: null }))).toBe(true);
    expect(invalid()).toEqual([conversationKeys.state('c1')]);
  });

  it('what must not happen: "you missed nothing", another conversation or a malformed message touch the cache', async () => {
    const { client, invalid } = cache();
    for (const raw of [msg({ conversationId: 'c1', runIds: [] }), msg({ conversationId: 'c2', runIds: ['r2'] }), 'garbage', msg({ runIds: ['r1'] })]) {
      expect(applyConversationPush(client, 'c1', raw), raw).toBe(false);
    }
    expect(invalid()).toEqual([]);
  });

  it('a flood of messages marks each entry once and never another conversation', async () => {
    const { client, invalid } = cache();
    for (let i = 0; i < 500; i++) applyConversationPush(client, 'c1', msg({ conversationId: 'c1', runIds: [i % 2 ? 'r1' : 'r2'] }));
    expect(invalid()).toEqual([conversationKeys.state('c1'), runKeys.detail('r1'), runKeys.events('r1'), runKeys.detail('r2')]);
  });
});
