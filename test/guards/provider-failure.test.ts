import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getState } from '@/server/agents/runs';
import { conversationWith, send } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';
import { makeUser } from '../support/users';

// An OpenAI-compatible server that refuses every completion with 401 (the client does not retry a 401).
const saved = { ...process.env };
let server: http.Server;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.OPENAI_API_KEY = 'sk-wrong';
  process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  process.env = saved;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a real provider error is a handled failure', () => {
  it('401 from the provider: the graph ends on a marked message (kind auth), the run fails with the provider message', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini' });
    const run = await send(ann.id, conversation.id, 'Hello?');
    expect(hits).toBeGreaterThanOrEqual(1);
    expect(run.status).toBe('error');
    expect(run.error).toMatch(/Incorrect API key provided/);
    const messages = (await getState(ann.id, conversation.id)).messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.meta).toMatchObject({ kind: 'framework_note', modelError: { kind: 'auth' } });
    expect(ofType(await eventsOf(run.id), 'model.call')[0]!.error).toMatch(/Incorrect API key provided/);
    expect(ofType(await eventsOf(run.id), 'run.finished')[0]).toMatchObject({ outcome: 'failed' });
  });
});
