import { afterEach, describe, expect, it } from 'vitest';
import { getState } from '@/server/agents/runs';
import { adaptiveFetch } from '@/server/agents/model-call/adaptive-fetch';
import { forgetUnsupportedParameters, unsupportedParameters } from '@/server/agents/model-call/unsupported-parameters';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';
import { startSseProvider, textStream, type ProviderRequest, type ProviderReply } from './sse-provider';

/**
 * A server that refuses an optional parameter with a 400 naming it: the call is sent once more without it, and the
 * provider is remembered as refusing it (later calls leave it out from the start). What must not happen: every run
 * failing on such a server; a parameter dropped that the error did not name or that the request needs; a usage
 * made up once the server no longer reports it.
 */

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  process.env = { ...saved };
  forgetUnsupportedParameters();
  await close?.();
  close = undefined;
});

async function provider(reply: (request: ProviderRequest, n: number) => ProviderReply) {
  const server = await startSseProvider(reply);
  close = server.close;
  process.env.OPENAI_API_KEY = 'sk-test-adaptive';
  process.env.OPENAI_BASE_URL = server.baseURL;
  const ann = await makeUser('ann');
  const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini' });
  return { server, ask: (text: string) => send(ann.id, conversation.id, text), state: () => getState(ann.id, conversation.id) };
}

/** As vLLM-style servers answer a request with a field they don't know. */
const refuses = (name: string): ProviderReply => ({ status: 400, body: { error: { message: `Unrecognized request argument supplied: ${name}`, type: 'invalid_request_error' } } });

describe('a server that refuses stream_options', () => {
  it('runs anyway: retried once without it, remembered for the provider, usage then unreported (absent, not 0)', { timeout: 30_000 }, async () => {
    const { server, ask, state } = await provider((request) =>
      'stream_options' in request.body ? refuses('stream_options') : { sse: textStream('Hello without usage.', { usage: undefined }) },
    );
    const provider_ = { kind: 'openai' as const, baseUrl: server.baseURL };
    expect(unsupportedParameters(provider_)).toEqual([]);

    const first = await ask('Hi');
    expect(first).toMatchObject({ status: 'success', error: null });
    expect((await state()).messages.map((m) => m.text)).toEqual(['Hi', 'Hello without usage.']);
    expect(server.requests.map((r) => 'stream_options' in r.body)).toEqual([true, false]);
    expect(unsupportedParameters(provider_)).toEqual(['stream_options']);
    const call = ofType(await eventsOf(first.id), 'model.call');
    expect(call).toHaveLength(1);
    expect(call[0]).not.toHaveProperty('inputTokens');
    expect(call[0]).not.toHaveProperty('outputTokens');
    expect(first).toMatchObject({ unreportedCalls: 1 });

    // Remembered: the next run's request leaves it out from the start.
    expect(await ask('Again')).toMatchObject({ status: 'success' });
    expect(server.requests.map((r) => 'stream_options' in r.body)).toEqual([true, false, false]);
  });

  it('a 400 that names no parameter the request carries fails the run at once with its message', { timeout: 30_000 }, async () => {
    const { server, ask } = await provider(() => refuses('frequency_of_magic'));
    const run = await ask('Hi');
    expect(run.status).toBe('error');
    expect(run.error).toContain('Unrecognized request argument supplied: frequency_of_magic');
    expect(server.requests).toHaveLength(1);
    expect(unsupportedParameters({ kind: 'openai', baseUrl: server.baseURL })).toEqual([]);
  });
});

describe('adaptiveFetch on its own', () => {
  const provider_ = { kind: 'openai' as const, baseUrl: 'http://gateway.test/v1' };
  const body = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'm', messages: [], stream: true, stream_options: { include_usage: true }, parallel_tool_calls: true, ...extra });
  const bad = (message: string) => new Response(JSON.stringify({ error: { message } }), { status: 400, statusText: 'Bad Request' });

  it('retries once only: a second 400 naming another parameter is returned as it is', async () => {
    const sent: Array<Record<string, unknown>> = [];
    const fetch = adaptiveFetch(provider_, async (_url, init) => {
      sent.push(JSON.parse(String(init!.body)));
      return sent.length === 1 ? bad("Unknown parameter: 'parallel_tool_calls'.") : bad('stream_options is not supported');
    });
    const response = await fetch('http://gateway.test/v1/chat/completions', { method: 'POST', body: body(), headers: { 'content-length': '999' } });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('stream_options is not supported');
    expect(sent).toHaveLength(2);
    expect('parallel_tool_calls' in sent[1]!).toBe(false);
    expect('stream_options' in sent[1]!).toBe(true);
    expect(unsupportedParameters(provider_)).toEqual(['parallel_tool_calls']);
  });

  it('a parameter merely inside another word or value is not taken as named', async () => {
    const sent: string[] = [];
    const fetch = adaptiveFetch(provider_, async (_url, init) => {
      sent.push(String(init!.body));
      return bad('bad value in xstream_options_v2 and my_parallel_tool_calls_flag');
    });
    const response = await fetch('http://gateway.test/v1/chat/completions', { method: 'POST', body: body() });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { message: 'bad value in xstream_options_v2 and my_parallel_tool_calls_flag' } });
    expect(sent).toHaveLength(1);
    expect(unsupportedParameters(provider_)).toEqual([]);
  });

  it('remembers per provider: another endpoint still gets the parameter', async () => {
    const other = { kind: 'openai' as const, baseUrl: 'http://other.test/v1' };
    const sent: Array<Record<string, unknown>> = [];
    const inner = async (_url: unknown, init?: RequestInit) => {
      sent.push(JSON.parse(String(init!.body)));
      return 'stream_options' in sent.at(-1)! ? bad('stream_options: extra inputs are not permitted') : new Response('{}', { status: 200 });
    };
    await adaptiveFetch(provider_, inner)('http://gateway.test/v1/chat/completions', { method: 'POST', body: body() });
    expect(unsupportedParameters(provider_)).toEqual(['stream_options']);
    expect(unsupportedParameters({ kind: 'openai', baseUrl: 'http://gateway.test/v1/' })).toEqual(['stream_options']);
    expect(unsupportedParameters(other)).toEqual([]);
    expect(unsupportedParameters({ kind: 'anthropic', baseUrl: provider_.baseUrl })).toEqual([]);
    sent.length = 0;
    await adaptiveFetch(provider_, inner)('http://gateway.test/v1/chat/completions', { method: 'POST', body: body() });
    expect(sent.map((b) => 'stream_options' in b)).toEqual([false]);
  });

  it('a body that is not a JSON object is sent untouched', async () => {
    const seen: unknown[] = [];
    const fetch = adaptiveFetch(provider_, async (_url, init) => {
      seen.push(init?.body);
      return bad('stream_options');
    });
    await fetch('http://gateway.test/v1/files', { method: 'POST', body: 'not json stream_options' });
    expect(seen).toEqual(['not json stream_options']);
  });
});
