import type { AIMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { getState } from '@/server/agents/runs';
import { readThread } from '@/server/agents/thread';
import { makeUser } from '../support/users';
import { conversationWith, send } from '../agents/helpers';
import { chunk, startSseProvider, textStream, type ProviderReply } from './sse-provider';

/**
 * Through real runs against an OpenAI-compatible server that is not ours. What must not happen: an answer replaced
 * in the thread because the server reused its completion id; an answer stored empty, or its tool calls lost,
 * because the server's deltas carry no role.
 */

const saved = { ...process.env };
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  process.env = { ...saved };
  await close?.();
  close = undefined;
});

async function provider(reply: (n: number) => ProviderReply, agent: { toolGroups?: string[] } = {}) {
  const server = await startSseProvider((_request, n) => reply(n));
  close = server.close;
  process.env.OPENAI_API_KEY = 'sk-test-identity';
  process.env.OPENAI_BASE_URL = server.baseURL;
  const ann = await makeUser('ann');
  const { conversation } = await conversationWith(ann.id, { model: 'openai:gpt-4.1-mini', ...agent });
  return { server, conversation, ask: (text: string) => send(ann.id, conversation.id, text), state: () => getState(ann.id, conversation.id) };
}

describe('message identity is ours', () => {
  it('two completions with the same provider id are both kept, in order; the provider id is metadata only', { timeout: 30_000 }, async () => {
    const { ask, state, conversation } = await provider((n) => ({ sse: textStream(n === 1 ? 'First answer.' : 'Second answer.', { id: 'chatcmpl-reused', role: true }) }));
    expect(await ask('One')).toMatchObject({ status: 'success' });
    expect(await ask('Two')).toMatchObject({ status: 'success' });
    expect((await state()).messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'One'],
      ['assistant', 'First answer.'],
      ['user', 'Two'],
      ['assistant', 'Second answer.'],
    ]);
    const answers = (await readThread(conversation.id)).messages.filter((m): m is AIMessage => m.getType() === 'ai');
    expect(answers).toHaveLength(2);
    expect(new Set(answers.map((m) => m.id)).size).toBe(2);
    for (const m of answers) {
      expect(m.id).not.toBe('chatcmpl-reused');
      expect(m.response_metadata.provider_message_id).toBe('chatcmpl-reused');
    }
  });

  it('the scripted model gets server ids too: two identical answers are two messages', async () => {
    const ann = await makeUser('ann');
    const { conversation } = await conversationWith(ann.id, { instructions: '/reply Same words.' });
    await send(ann.id, conversation.id, 'a');
    await send(ann.id, conversation.id, 'b');
    const { messages } = await getState(ann.id, conversation.id);
    expect(messages.map((m) => m.text)).toEqual(['a', 'Same words.', 'b', 'Same words.']);
  });
});

describe('deltas without a role', () => {
  it('a tool call and then an answer, no role in any delta: the tool runs and the answer is stored', { timeout: 30_000 }, async () => {
    const { ask, state } = await provider(
      (n) =>
        n === 1
          ? {
              sse: [
                chunk('c1', { content: 'Let me compute. ' }),
                chunk('c1', { tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'calculator', arguments: '{"expr' } }] }),
                chunk('c1', { tool_calls: [{ index: 0, function: { arguments: 'ession":"6*7"}' } }] }),
                chunk('c1', {}, 'tool_calls'),
              ],
            }
          : { sse: textStream('It is 42, 東京 😀.', { id: 'c2' }) },
      { toolGroups: ['utility'] },
    );
    const run = await ask('Six times seven?');
    expect(run).toMatchObject({ status: 'success', error: null });
    const { messages } = await state();
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'Six times seven?'],
      ['assistant', 'Let me compute. '],
      ['tool', '42'],
      ['assistant', 'It is 42, 東京 😀.'],
    ]);
    expect(messages[1]!.toolCalls).toEqual([{ id: 'call_abc', name: 'calculator', args: { expression: '6*7' } }]);
  });
});
