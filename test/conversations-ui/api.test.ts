import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { cancelRun, createConversation, getAgent, resumeConversation, sendMessage } from '@/components/conversations/api';

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

describe('conversation API client', () => {
  it('sends a message with its idempotency key', async () => {
    const calls = stubFetch(202, { run: { id: 'r1' } });
    await expect(sendMessage('c/1', 'hi', 'key-1')).resolves.toEqual({ run: { id: 'r1' } });
    expect(calls).toEqual([{ url: '/api/v1/conversations/c%2F1/messages', method: 'POST', body: { text: 'hi', idempotencyKey: 'key-1' } }]);
  });

  it('resumes with the approval value and cancels a run', async () => {
    const calls = stubFetch(202, { run: { id: 'r2' } });
    await resumeConversation('c1', { approved: false, note: 'no' }, 'k');
    await cancelRun('r2');
    expect(calls).toEqual([
      { url: '/api/v1/conversations/c1/resume', method: 'POST', body: { value: { approved: false, note: 'no' }, idempotencyKey: 'k' } },
      { url: '/api/v1/runs/r2/cancel', method: 'POST', body: undefined },
    ]);
  });

  it('turns a 409 into an ApiError with the busy code', async () => {
    stubFetch(409, { error: { code: 'conversation_busy', message: 'busy' } });
    const err = await sendMessage('c1', 'hi', 'k').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 409, code: 'conversation_busy' });
  });

  it('reads a created conversation wrapped or bare', async () => {
    stubFetch(201, { conversation: { id: 'c9' } });
    await expect(createConversation('a1')).resolves.toMatchObject({ id: 'c9' });
    const calls = stubFetch(201, { id: 'c10' });
    await expect(createConversation('a1')).resolves.toMatchObject({ id: 'c10' });
    expect(calls[0]).toEqual({ url: '/api/v1/conversations', method: 'POST', body: { agentId: 'a1' } });
    stubFetch(201, {});
    await expect(createConversation('a1')).rejects.toThrow(/did not return/);
  });

  it('reads an agent wrapped or bare', async () => {
    stubFetch(200, { id: 'a1', name: 'Writer', model: 'scripted' });
    await expect(getAgent('a1')).resolves.toMatchObject({ model: 'scripted' });
    stubFetch(200, { agent: { id: 'a1', name: 'Writer', model: 'openai:gpt-4.1-mini' } });
    await expect(getAgent('a1')).resolves.toMatchObject({ model: 'openai:gpt-4.1-mini' });
  });
});
