import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { getAgent, getConversation } from '@/components/conversations/api';

type Call = { url: string; method: string; body: unknown };

function stubFetch(status: number, body: unknown) {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    calls.push({ url, method: init.method ?? 'GET', body: init.body ? JSON.parse(String(init.body)) : undefined });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('conversation API client (reads; writes are server actions, test/actions/conversations.test.ts)', () => {
  it('reads a conversation under its encoded id', async () => {
    const calls = stubFetch(200, { conversation: { id: 'c/1' }, messages: [], run: null });
    await expect(getConversation('c/1')).resolves.toMatchObject({ conversation: { id: 'c/1' } });
    expect(calls).toEqual([{ url: '/api/v1/conversations/c%2F1', method: 'GET', body: undefined }]);
  });

  it('turns a refusal into an ApiError with its status and code', async () => {
    stubFetch(404, { error: { code: 'not_found', message: 'Conversation not found' } });
    const err = await getConversation('c1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('reads an agent wrapped or bare', async () => {
    stubFetch(200, { id: 'a1', name: 'Writer', model: 'scripted' });
    await expect(getAgent('a1')).resolves.toMatchObject({ model: 'scripted' });
    stubFetch(200, { agent: { id: 'a1', name: 'Writer', model: 'openai:gpt-4.1-mini' } });
    await expect(getAgent('a1')).resolves.toMatchObject({ model: 'openai:gpt-4.1-mini' });
  });
});
