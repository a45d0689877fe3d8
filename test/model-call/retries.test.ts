import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LiveOutputChange } from '@/server/push/bus';
import { pushBus } from '@/server/push/bus';
import { getState } from '@/server/agents/runs';
import { setRetryBaseDelayForTests } from '@/server/agents/model-call/backoff';
import { setRunMinuteMsForTests } from '@/server/agents/run-time-limit';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';
import { chunk, startSseProvider, textStream, type ProviderReply } from './sse-provider';

/**
 * Transient provider failures through a real run (the @langchain/openai client against a local server): each one is
 * retried within MODEL_MAX_ATTEMPTS, each attempt is a model.call event with its number and error, what a failed
 * attempt wrote live is dropped and the card is told it is retrying, and anything else fails at once with the
 * provider's message. What must not happen: a transient failure failing the run, a refused request retried, a broken
 * attempt's text stored, a wait past the provider's Retry-After skipped.
 */

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;

beforeEach(() => setRetryBaseDelayForTests(5));
afterEach(async () => {
  process.env = { ...saved };
  setRetryBaseDelayForTests(undefined);
  setRunMinuteMsForTests(undefined);
  await close?.();
  close = undefined;
});

async function provider(reply: (n: number) => ProviderReply, agent: { timeLimitMinutes?: number } = {}) {
  const times: number[] = [];
  const server = await startSseProvider((_request, n) => {
    times.push(Date.now());
    return reply(n);
  });
  close = server.close;
  process.env.OPENAI_API_KEY = 'sk-test-retries';
  process.env.OPENAI_BASE_URL = server.baseURL;
  const ann = await makeUser('ann');
  const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', ...agent });
  return { server, times, ask: (text: string) => send(ann.id, conversation.id, text), state: () => getState(ann.id, conversation.id) };
}

const error = (status: number, message: string, headers?: Record<string, string>): ProviderReply => ({ status, body: { error: { message, type: 'server_error' } }, headers });
const answer = (text: string): ProviderReply => ({ sse: textStream(text, { role: true }) });

describe('transient failures are retried within the attempt cap', () => {
  it('503, 500, then an answer: the run succeeds with that answer; three model.call events numbered 1 to 3', { timeout: 30_000 }, async () => {
    const { ask, state } = await provider((n) => (n === 1 ? error(503, 'Service Unavailable') : n === 2 ? error(500, 'boom') : answer('Third time lucky.')));
    const run = await ask('Hello');
    expect(run).toMatchObject({ status: 'success', error: null });
    expect((await state()).messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hello'],
      ['assistant', 'Third time lucky.'],
    ]);
    const calls = ofType(await eventsOf(run.id), 'model.call');
    expect(calls.map((c) => [c.attempt, c.error?.slice(0, 3)])).toEqual([
      [1, '503'],
      [2, '500'],
      [3, undefined],
    ]);
  });

  it('429 and 529 (overloaded) are transient too', { timeout: 30_000 }, async () => {
    const { ask, server } = await provider((n) => (n === 1 ? error(429, 'Rate limited') : n === 2 ? error(529, 'Overloaded') : answer('Fine now.')));
    expect(await ask('Hello')).toMatchObject({ status: 'success' });
    expect(server.requests).toHaveLength(3);
  });

  it("honours Retry-After: the next attempt starts no earlier than the provider asked", { timeout: 30_000 }, async () => {
    const { ask, times } = await provider((n) => (n === 1 ? error(429, 'Slow down', { 'retry-after-ms': '400' }) : answer('Waited.')));
    expect(await ask('Hello')).toMatchObject({ status: 'success' });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(400);
  });

  it("waits within the run's time limit: the limit ends a wait for Retry-After at once, as time_capped", { timeout: 30_000 }, async () => {
    setRunMinuteMsForTests(600);
    const { ask, server } = await provider(() => error(503, 'Busy', { 'retry-after': '50' }), { timeLimitMinutes: 1 }); // 0.6 s
    const started = Date.now();
    const run = await ask('Hello');
    expect(run).toMatchObject({ status: 'error', stopReason: 'time_capped' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(1);
  });

  it('a Retry-After longer than a minute is not waited for: the run fails with the provider message, once', { timeout: 30_000 }, async () => {
    const { ask, server } = await provider(() => error(429, 'Come back tomorrow', { 'retry-after': '3600' }));
    const run = await ask('Hello');
    expect(run.status).toBe('error');
    expect(run.error).toContain('Come back tomorrow');
    expect(server.requests).toHaveLength(1);
  });

  it('at MODEL_MAX_ATTEMPTS the last error fails the run (2 allowed: 2 requests, not 3)', { timeout: 30_000 }, async () => {
    process.env.MODEL_MAX_ATTEMPTS = '2';
    const { ask, server } = await provider(() => error(502, 'Bad gateway'));
    const run = await ask('Hello');
    expect(run.status).toBe('error');
    expect(run.error).toContain('Bad gateway');
    expect(server.requests).toHaveLength(2);
    expect(ofType(await eventsOf(run.id), 'model.call').map((c) => c.attempt)).toEqual([1, 2]);
  });

  it('MODEL_MAX_ATTEMPTS=1 means no retry at all', { timeout: 30_000 }, async () => {
    process.env.MODEL_MAX_ATTEMPTS = '1';
    const { ask, server } = await provider(() => error(503, 'Unavailable'));
    const run = await ask('Hello');
    expect(run.status).toBe('error');
    expect(server.requests).toHaveLength(1);
    // Not retried: the one attempt carries no number.
    expect(ofType(await eventsOf(run.id), 'model.call').map((c) => c.attempt)).toEqual([undefined]);
  });
});

describe('other errors fail at once', () => {
  for (const [status, message] of [
    [400, 'Invalid value for messages[1].content'],
    [401, 'Incorrect API key provided'],
    [404, 'The model gpt-x does not exist'],
    [422, 'Unprocessable'],
  ] as const) {
    it(`${status}: one request, and the run's error is the provider's message`, { timeout: 30_000 }, async () => {
      const { ask, server } = await provider(() => error(status, message));
      const run = await ask('Hello');
      expect(run.status).toBe('error');
      expect(run.error).toContain(message);
      expect(server.requests).toHaveLength(1);
    });
  }
});

describe("the person reads the provider's words", () => {
  it("without LangChain's troubleshooting link: the run's error, its note and every attempt's step", { timeout: 30_000 }, async () => {
    for (const [status, message] of [
      [429, 'Rate limit reached for requests'],
      [404, 'The model gpt-x does not exist'],
    ] as const) {
      const { ask, state } = await provider(() => error(status, message));
      const run = await ask('Hello');
      expect(run.status).toBe('error');
      expect(run.error).toBe(`${status} ${message}`);
      const note = (await state()).messages.find((m) => m.role === 'assistant')!;
      expect(note.text).toBe(`The model call failed: ${status} ${message}`);
      const attempts = ofType(await eventsOf(run.id), 'model.call');
      expect(attempts.length).toBeGreaterThan(0);
      for (const attempt of attempts) expect(attempt.error).toBe(`${status} ${message}`);
      await close?.();
      close = undefined;
    }
  });

  it('a provider nobody answers at: "Could not connect to the model provider (ECONNREFUSED)", not a bare "Connection error."', { timeout: 30_000 }, async () => {
    const { server } = await provider(() => answer('never'));
    await server.close();
    close = undefined;
    const ann = await makeUser('ann-refused');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini' });
    const run = await send(ann.id, conversation.id, 'Hello');
    expect(run.status).toBe('error');
    expect(run.error).toBe('Could not connect to the model provider (ECONNREFUSED).');
    for (const attempt of ofType(await eventsOf(run.id), 'model.call')) expect(attempt.error).toBe(run.error);
  });
});

describe('a stream that breaks mid-answer', () => {
  it('an error sent inside the stream (server_error, as OpenAI and gateways send mid-answer) is retried; the partial text is not kept', { timeout: 30_000 }, async () => {
    const { ask, state, server } = await provider((n) =>
      n === 1
        ? { sse: [chunk('chatcmpl-1', { role: 'assistant', content: 'Half an ans' }), { error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } }], close: true }
        : answer('The whole answer.'),
    );
    const run = await ask('Hello');
    expect(run).toMatchObject({ status: 'success', error: null });
    expect(server.requests).toHaveLength(2);
    expect((await state()).messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Hello'],
      ['assistant', 'The whole answer.'],
    ]);
    expect(ofType(await eventsOf(run.id), 'model.call').map((c) => [c.attempt, c.error])).toEqual([
      [1, 'The server had an error while processing your request.'],
      [2, undefined],
    ]);
  });

  it('closed cleanly before its finish reason (a proxy cutting it): not taken as the answer, retried', { timeout: 30_000 }, async () => {
    const { ask, state, server } = await provider((n) => (n === 1 ? { sse: [chunk('chatcmpl-1', { role: 'assistant', content: 'Cut sho' })], close: true } : answer('The whole answer.')));
    const run = await ask('Hello');
    expect(run).toMatchObject({ status: 'success', error: null });
    expect((await state()).messages.map((m) => m.text)).toEqual(['Hello', 'The whole answer.']);
    expect(server.requests).toHaveLength(2);
    expect(ofType(await eventsOf(run.id), 'model.call')[0]!.error).toBe('The provider ended the stream before the answer was complete');
  });

  it('is retried; what it wrote live is dropped (never stored), and the card is told it is retrying', { timeout: 30_000 }, async () => {
    const heard: LiveOutputChange[] = [];
    const listen = (change: LiveOutputChange) => heard.push(change);
    pushBus().on('liveOutput', listen);
    try {
      const { ask, state } = await provider((n) =>
        n === 1 ? { sse: [chunk('chatcmpl-1', { role: 'assistant', content: 'Broken 東京 😀 ' }), chunk('chatcmpl-1', { content: 'half' })], break: true } : answer('Whole answer.'),
      );
      const run = await ask('Hello');
      expect(run).toMatchObject({ status: 'success', error: null });
      expect((await state()).messages.map((m) => m.text)).toEqual(['Hello', 'Whole answer.']);
      const mine = heard.filter((c) => c.runId === run.id);
      // The broken attempt's words were shown, then dropped with the retry notice, then the new answer replaced them.
      const retry = mine.findIndex((c) => c.retrying !== null);
      expect(mine.slice(0, retry).some((c) => c.text.includes('Broken'))).toBe(true);
      expect(mine[retry]).toMatchObject({ text: '', retrying: { attempt: 2, maxAttempts: 3 }, done: false });
      expect(mine.slice(retry + 1).every((c) => !c.text.includes('Broken') && c.retrying === null)).toBe(true);
      expect(mine.at(-1)).toMatchObject({ text: 'Whole answer.', done: true, retrying: null });
      const calls = ofType(await eventsOf(run.id), 'model.call');
      expect(calls.map((c) => c.attempt)).toEqual([1, 2]);
      expect(calls[0]!.error).toBeTruthy();
    } finally {
      pushBus().off('liveOutput', listen);
    }
  });
});
