import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { agentKeys, agentListQuery, agentQuery, fetchAgent } from '@/components/agents/queries';
import {
  BUSY_LIST_POLL_MS,
  IDLE_LIST_POLL_MS,
  conversationKeys,
  conversationListQuery,
  conversationStateQuery,
  fetchConversation,
  mentionTargetsQuery,
} from '@/components/conversations/queries';
import { tokenKeys, tokenListQuery } from '@/components/settings/queries';
import type { ConversationListItem } from '@/lib/types/conversation';

type Call = { url: string; method: string };

function stubFetch(status: number, body: unknown) {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    calls.push({ url, method: init.method ?? 'GET' });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  return calls;
}

afterEach(async () => vi.unstubAllGlobals());

/** A client holding one settled entry per key, so invalidation can be observed entry by entry. */
function clientWith(keys: readonly (readonly unknown[])[]) {
  const client = new QueryClient();
  for (const key of keys) client.setQueryData(key, { at: 'seed' });
  const invalid = () =>
    client
      .getQueryCache()
      .getAll()
      .filter((q) => q.state.isInvalidated)
      .map((q) => q.queryKey);
  return { client, invalid };
}

describe('conversation query keys', () => {
  it("invalidating one conversation covers its state and mention targets, and nothing of another or the list", async () => {
    const { client, invalid } = clientWith([
      conversationKeys.state('c1'),
      conversationKeys.mentionTargets('c1'),
      conversationKeys.state('c2'),
      conversationKeys.list(),
    ]);
    await client.invalidateQueries({ queryKey: conversationKeys.one('c1') });
    expect(invalid()).toEqual([conversationKeys.state('c1'), conversationKeys.mentionTargets('c1')]);
  });

  it('the factories use the hierarchical keys, and everything sits under conversationKeys.all', async () => {
    expect(conversationStateQuery('c1').queryKey).toEqual(['conversations', 'c1', 'state']);
    expect(mentionTargetsQuery('c1').queryKey).toEqual(['conversations', 'c1', 'mention-targets']);
    expect(conversationListQuery().queryKey).toEqual(['conversations', 'list']);
    const { client, invalid } = clientWith([conversationKeys.state('c1'), conversationKeys.list(), agentKeys.detail('a1')]);
    await client.invalidateQueries({ queryKey: conversationKeys.all });
    expect(invalid()).toEqual([conversationKeys.state('c1'), conversationKeys.list()]);
  });

  it('the list (it has no stream) re-reads often while a row works, seldom otherwise, and when the tab is shown again', async () => {
    const options = conversationListQuery();
    const row = (activity: ConversationListItem['activity']) => ({ id: 'c', agentId: 'a', agentName: 'A', title: '', createdAt: '', updatedAt: '', activity, team: null });
    // The option reads only the query's data: a stand-in with that much is the query it is given.
    const intervalWith = (conversations: ConversationListItem[] | undefined) => {
      const query = { state: { data: conversations ? { conversations } : undefined } } as Parameters<Extract<typeof options.refetchInterval, (...args: never[]) => unknown>>[0];
      return typeof options.refetchInterval === 'function' ? options.refetchInterval(query) : options.refetchInterval;
    };
    expect(intervalWith(undefined)).toBe(IDLE_LIST_POLL_MS);
    expect(intervalWith([row(null), row('waiting_for_you')])).toBe(IDLE_LIST_POLL_MS);
    expect(intervalWith([row(null), row('working')])).toBe(BUSY_LIST_POLL_MS);
    expect(BUSY_LIST_POLL_MS).toBeLessThan(IDLE_LIST_POLL_MS);
    expect(options.refetchOnWindowFocus).toBe(true);
  });

  it('a push for one conversation (exact state) leaves its mention targets cached', async () => {
    const { client, invalid } = clientWith([conversationKeys.state('c1'), conversationKeys.mentionTargets('c1')]);
    await client.invalidateQueries({ queryKey: conversationKeys.state('c1'), exact: true });
    expect(invalid()).toEqual([conversationKeys.state('c1')]);
  });
});

describe('agent and token query keys', () => {
  it('invalidating the agent lists covers every search and no single agent', async () => {
    const { client, invalid } = clientWith([agentKeys.list(''), agentKeys.list('writer'), agentKeys.detail('a1')]);
    await client.invalidateQueries({ queryKey: agentKeys.lists });
    expect(invalid()).toEqual([agentKeys.list(''), agentKeys.list('writer')]);
    await client.invalidateQueries({ queryKey: agentKeys.all });
    expect(invalid()).toHaveLength(3);
  });

  it('one shape per resource: the factories name the keys the mutations invalidate', async () => {
    expect(agentListQuery('x').queryKey).toEqual(agentKeys.list('x'));
    expect(agentQuery('a1').queryKey).toEqual(agentKeys.detail('a1'));
    expect(tokenListQuery().queryKey).toEqual(tokenKeys.list);
    expect(tokenKeys.list.slice(0, 1)).toEqual(tokenKeys.all);
  });
});

describe('reads (writes are server actions, test/actions/)', () => {
  it('reads a conversation under its encoded id', async () => {
    const calls = stubFetch(200, { conversation: { id: 'c/1' }, messages: [], run: null });
    await expect(fetchConversation('c/1')).resolves.toMatchObject({ conversation: { id: 'c/1' } });
    expect(calls).toEqual([{ url: '/api/v1/conversations/c%2F1', method: 'GET' }]);
  });

  it('reads the mention targets and the conversation list from their own endpoints', async () => {
    const calls = stubFetch(200, { targets: [] });
    const client = new QueryClient();
    await client.fetchQuery(mentionTargetsQuery('c 1'));
    await client.fetchQuery(conversationListQuery());
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/conversations/c%201/mentions', '/api/v1/conversations']);
  });

  it('reads an agent as the API answers it: the agent itself, not wrapped', async () => {
    const calls = stubFetch(200, { id: 'a1', name: 'Writer', model: 'scripted' });
    await expect(fetchAgent('a/1')).resolves.toMatchObject({ id: 'a1', model: 'scripted' });
    expect(calls).toEqual([{ url: '/api/v1/agents/a%2F1', method: 'GET' }]);
  });

  it('token list: the query selects the tokens out of the reply', async () => {
    stubFetch(200, { tokens: [{ id: 't1' }] });
    const client = new QueryClient();
    const { select, ...options } = tokenListQuery();
    const reply = await client.fetchQuery(options);
    expect(select?.(reply)).toEqual([{ id: 't1' }]);
  });

  it('turns a refusal into an ApiError with its status and code', async () => {
    stubFetch(404, { error: { code: 'not_found', message: 'Conversation not found' } });
    const err = await fetchConversation('c1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
  });
});
