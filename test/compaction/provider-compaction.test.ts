import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SUMMARY_PROMPT } from '@/server/agents/compaction/summarize';
import { start } from '@/server/agents/runs';
import { makeUser } from '../support/users';
import { conversationWith, finished } from '../agents/helpers';
import { eventsOf, ofType } from '../observe/helpers';

type Body = { messages: Array<{ role: string; content: unknown }>; tools?: unknown };

/** An OpenAI-compatible stub that answers the given texts in order and keeps every request body. */
async function recordingStub(texts: string[]) {
  const bodies: Body[] = [];
  const raws: string[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      raws.push(raw);
      bodies.push(JSON.parse(raw) as Body);
      const text = texts[Math.min(bodies.length - 1, texts.length - 1)]!;
      const usage = { prompt_tokens: 100 + bodies.length, completion_tokens: 7, total_tokens: 107 + bodies.length };
      if ((JSON.parse(raw) as { stream?: boolean }).stream) {
        // The agent's model call streams (ADR 031): the same answer as server-sent chunks, usage last.
        const chunk = (choices: unknown[], extra = {}) =>
          `data: ${JSON.stringify({ id: `chatcmpl-${bodies.length}`, object: 'chat.completion.chunk', created: 0, model: 'gpt-4.1-mini', choices, ...extra })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk([{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }]));
        res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
        res.end(`${chunk([], { usage })}data: [DONE]\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${bodies.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: 'gpt-4.1-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, raws, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  process.env = { ...saved };
  await close?.();
  close = undefined;
});

const text = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

describe('compaction on a real provider path (initChatModel against a local OpenAI-compatible stub)', () => {
  it('counts with the model tokenizer, sends the summary call without tools or server options, then system + summary + tail', { timeout: 60_000 }, async () => {
    const stub = await recordingStub(['First answer', 'The person sent a long list of words.', 'Second answer']);
    close = stub.close;
    process.env.OPENAI_API_KEY = 'sk-test-stub';
    process.env.OPENAI_BASE_URL = stub.baseURL;
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', compactAtTokens: 1_000, toolGroups: ['utility'] });
    const send = async (message: string) => finished((await start(ann.id, conversation.id, { text: message }, { idempotencyKey: crypto.randomUUID() })).run.id, 40_000);

    expect((await send('word '.repeat(500))).status).toBe('success');
    const run = await send('more '.repeat(600));
    expect(run.status).toBe('success');
    expect(stub.bodies).toHaveLength(3);

    const summaryCall = stub.bodies[1]!;
    expect(summaryCall.tools).toBeUndefined();
    expect(summaryCall.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(text(summaryCall.messages[0]!.content)).toBe(SUMMARY_PROMPT);
    expect(text(summaryCall.messages[1]!.content)).toContain('word word');
    expect(text(summaryCall.messages[1]!.content)).toContain('First answer');
    // The server's marker and meta stay on our side of the wire.
    expect(stub.raws[1]).not.toContain('ensembleSystemCall');
    expect(stub.raws[1]).not.toContain('compaction_input');

    const agentCall = stub.bodies[2]!;
    expect(agentCall.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(text(agentCall.messages[1]!.content)).toContain('<ensemble-summary>\nThe person sent a long list of words.\n</ensemble-summary>');
    expect(text(agentCall.messages[2]!.content)).toContain('more more');
    expect(agentCall.tools).toBeDefined();

    const events = await eventsOf(run.id);
    const calls = ofType(events, 'model.call');
    expect(calls.map((c) => [c.system ?? null, c.inputTokens])).toEqual([
      ['summary', 102],
      [null, 103],
    ]);
    const [compaction] = ofType(events, 'compaction');
    expect(compaction).toMatchObject({ counter: 'tokenizer' });
    expect(compaction!.removed).toHaveLength(2);
    expect(compaction!.tokensAfter).toBeLessThan(compaction!.tokensBefore);
  });
});
