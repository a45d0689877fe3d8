import crypto from 'node:crypto';
import { AIMessage, type ToolMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { start } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, finished } from '../agents/helpers';
import { eventsOf, expectDense, ofType, typesOf } from './helpers';
import { startProviderStub, type StubTurn } from './provider-stub';

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  process.env = { ...saved };
  await close?.();
  close = undefined;
});

/** Send and wait, with room for the first call of a real provider model (its tokenizer is loaded then). */
async function send(ownerId: string, conversationId: string, text: string) {
  const { run } = await start(ownerId, conversationId, { text }, { idempotencyKey: crypto.randomUUID() });
  return finished(run.id, 30_000);
}

async function withStub(turns: StubTurn[]) {
  const stub = await startProviderStub(turns);
  close = stub.close;
  process.env.OPENAI_API_KEY = 'sk-test-stub';
  process.env.OPENAI_BASE_URL = stub.baseURL;
  return stub;
}

describe('run events from a real provider path (initChatModel against a local OpenAI-compatible stub)', () => {
  it('a turn with two tool calls records both results, in the order asked; usage left out stays out and counts as unreported', { timeout: 40_000 }, async () => {
    await withStub([
      {
        toolCalls: [
          { name: 'calculator', arguments: '{"expression":"6*7"}' },
          { name: 'calculator', arguments: '{"expression":"1/0"}' },
        ],
        finish: 'tool_calls',
      },
      { text: 'Both done.', finish: 'stop' },
    ]);
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', toolGroups: ['utility'] });
    const run = await send(ann.id, conversation.id, 'Two sums, please');
    expect(run.status).toBe('success');

    const events = await eventsOf(run.id);
    expectDense(events);
    expect(typesOf(events)).toEqual(['run.started', 'model.call', 'step.assistant', 'step.tool', 'step.tool', 'model.call', 'step.assistant', 'run.finished']);
    const { messages } = await readThread(conversation.id);
    const asked = (messages[1] as AIMessage).tool_calls!;
    const results = messages.filter((m): m is ToolMessage => m.getType() === 'tool');
    expect(events[2]).toMatchObject({ toolCalls: asked.map((c) => ({ id: c.id, name: 'calculator', args: JSON.stringify(c.args) })) });
    expect(ofType(events, 'step.tool').map((t) => [t.toolCallId, t.result, t.status])).toEqual(results.map((m) => [m.tool_call_id, m.content, m.status ?? 'success']));
    expect(ofType(events, 'step.tool').map((t) => t.toolCallId)).toEqual(asked.map((c) => c.id));

    const calls = ofType(events, 'model.call');
    expect(calls.map((c) => c.finishReason)).toEqual(['tool_calls', 'stop']);
    for (const call of calls) {
      expect(call.model).toBe('openai:gpt-4.1-mini');
      expect(call).not.toHaveProperty('inputTokens');
      expect(call).not.toHaveProperty('outputTokens');
    }
    expect(run).toMatchObject({ modelCalls: 2, unreportedCalls: 2, inputTokens: 0, outputTokens: 0 });
  });

  it('reported usage is recorded exactly and summed into the run', async () => {
    await withStub([{ text: 'Hello.', finish: 'stop', usage: { prompt_tokens: 123, completion_tokens: 45 } }]);
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini' });
    const run = await send(ann.id, conversation.id, 'Hi');
    expect(ofType(await eventsOf(run.id), 'model.call')).toEqual([expect.objectContaining({ inputTokens: 123, outputTokens: 45, finishReason: 'stop' })]);
    expect(run).toMatchObject({ modelCalls: 1, unreportedCalls: 0, inputTokens: 123, outputTokens: 45 });
  });
});
