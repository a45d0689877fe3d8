import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setRetryBaseDelayForTests } from '@/server/agents/model-call/backoff';
import { callAgentModel } from '@/server/agents/model-call/call-model';
import { chatModelFor, createChatModel } from '@/server/agents/providers';

/**
 * ANTHROPIC_BASE_URL and OLLAMA_BASE_URL point the clients anywhere (a gateway, a test server), and the retry policy
 * holds for them too. What must not happen: a request (with the key) going to the provider's own endpoint when
 * another is configured; an Anthropic "overloaded" failing the run.
 */

type Seen = { url: string; headers: http.IncomingHttpHeaders; body: Record<string, unknown> };

async function server(reply: (seen: Seen, n: number) => { status: number; body: unknown } | { sse: Array<[string, unknown]> }) {
  const seen: Seen[] = [];
  const s = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const entry = { url: req.url ?? '', headers: req.headers, body: JSON.parse(raw || '{}') };
      seen.push(entry);
      const answer = reply(entry, seen.length);
      if ('sse' in answer) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const [event, data] of answer.sse) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        res.end();
      } else res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise<void>((resolve) => s.close(() => resolve())) };
}

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;
beforeEach(() => setRetryBaseDelayForTests(5));
afterEach(async () => {
  process.env = { ...saved };
  setRetryBaseDelayForTests(undefined);
  await close?.();
  close = undefined;
});

/** As Anthropic streams a text answer: the message, one text block in two deltas, the stop reason and usage. */
const anthropicStream = (id: string, text: string): Array<[string, unknown]> => [
  ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(0, 5) } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(5) } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }],
  ['message_stop', { type: 'message_stop' }],
];

describe('ANTHROPIC_BASE_URL', () => {
  it('sends anthropic: calls (with the key) to that endpoint; a 529 overloaded is retried', { timeout: 30_000 }, async () => {
    const stub = await server((_seen, n) => (n === 1 ? { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } : { sse: anthropicStream('msg_1', 'Hello from the gateway 東京 😀') }));
    close = stub.close;
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    process.env.ANTHROPIC_BASE_URL = stub.url;
    const model = await createChatModel({ name: 'A', model: 'anthropic:claude-test' });
    const message = await callAgentModel(model, [new HumanMessage('Hi')], {}, { run: undefined, model: 'anthropic:claude-test' });
    expect(message.content).toBe('Hello from the gateway 東京 😀');
    expect(message.response_metadata.provider_message_id).toBe('msg_1');
    expect(stub.seen.map((s) => s.url)).toEqual(['/v1/messages', '/v1/messages']);
    expect(stub.seen[0]!.headers['x-api-key']).toBe('sk-ant-test');
    expect(stub.seen[1]!.body.stream).toBe(true);
    expect(message.usage_metadata?.input_tokens).toBe(5);
    expect(message.response_metadata.stop_reason).toBe('end_turn');
  });

  it('a base URL ending in /v1 (which the Admin page\'s connection test accepts) still calls /v1/messages, not /v1/v1/messages', { timeout: 30_000 }, async () => {
    const stub = await server(() => ({ sse: anthropicStream('msg_2', 'Through the gateway') }));
    close = stub.close;
    const managed = chatModelFor({ kind: 'anthropic', baseUrl: `${stub.url}/v1`, apiKey: 'sk-ant-managed' }, 'claude-test');
    expect((await callAgentModel(managed, [new HumanMessage('Hi')], {}, { run: undefined, model: 'gw:claude-test' })).content).toBe('Through the gateway');
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    process.env.ANTHROPIC_BASE_URL = `${stub.url}/v1`;
    const fromEnv = await createChatModel({ name: 'A', model: 'anthropic:claude-test' });
    expect((await callAgentModel(fromEnv, [new HumanMessage('Hi')], {}, { run: undefined, model: 'anthropic:claude-test' })).content).toBe('Through the gateway');
    expect(stub.seen.map((s) => s.url)).toEqual(['/v1/messages', '/v1/messages']);
  });

  it('a malformed ANTHROPIC_BASE_URL fails the run naming the variable (the key never goes to the default)', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    process.env.ANTHROPIC_BASE_URL = 'ftp://nowhere';
    await expect(createChatModel({ name: 'A', model: 'anthropic:claude-test' })).rejects.toThrow(/ANTHROPIC_BASE_URL is not allowed/);
  });
});

describe('OLLAMA_BASE_URL', () => {
  it('sends ollama: calls to that endpoint', { timeout: 30_000 }, async () => {
    const stub = await server(() => ({
      status: 200,
      body: { model: 'llama-test', created_at: new Date().toISOString(), message: { role: 'assistant', content: 'Hi from Ollama.' }, done: true, done_reason: 'stop', prompt_eval_count: 4, eval_count: 2 },
    }));
    close = stub.close;
    process.env.OLLAMA_BASE_URL = stub.url;
    const model = await createChatModel({ name: 'O', model: 'ollama:llama-test' });
    const message = await model.invoke([new HumanMessage('Hi')]);
    expect(message.content).toBe('Hi from Ollama.');
    expect(stub.seen[0]!.url).toBe('/api/chat');
  });
});
