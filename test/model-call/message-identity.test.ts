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

  it('a server that numbers tool calls per answer (call_0 every turn): each turn’s call runs and pairs with its own result', { timeout: 30_000 }, async () => {
    // Odd requests ask for the calculator with call_0, as such servers do every turn; even ones answer in words.
    const { ask, state, server, conversation } = await provider(
      (n) =>
        n % 2 === 1
          ? { sse: [chunk('c', { role: 'assistant', tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'calculator', arguments: `{"expression":"${n}*10"}` } }] }), chunk('c', {}, 'tool_calls')] }
          : { sse: textStream(`Turn ${n / 2} done.`, { role: true }) },
      { toolGroups: ['utility'] },
    );
    expect(await ask('First')).toMatchObject({ status: 'success' });
    expect(await ask('Second')).toMatchObject({ status: 'success' });
    const { messages } = await state();
    // Must not happen: the second turn's call skipped as already answered (its id had a result from turn one).
    expect(messages.map((m) => [m.role, m.text])).toEqual([
      ['user', 'First'],
      ['assistant', ''],
      ['tool', '10'],
      ['assistant', 'Turn 1 done.'],
      ['user', 'Second'],
      ['assistant', ''],
      ['tool', '30'],
      ['assistant', 'Turn 2 done.'],
    ]);
    const callIds = [messages[1]!, messages[5]!].map((m) => m.toolCalls![0]!.id);
    expect(new Set(callIds).size).toBe(2);
    expect([messages[2]!.toolCallId, messages[6]!.toolCallId]).toEqual(callIds);
    const calls = (await readThread(conversation.id)).messages.filter((m): m is AIMessage => m.getType() === 'ai' && !!(m as AIMessage).tool_calls?.length);
    for (const m of calls) expect(Object.values(m.response_metadata.provider_tool_call_ids as Record<string, string>)).toEqual(['call_0']);
    // The history sent back is consistent: each call and its result under the server's id.
    const last = server.requests.at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string; tool_calls?: Array<{ id: string }> }>;
    expect(last.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(callIds);
    expect(last.filter((m) => m.tool_calls).map((m) => m.tool_calls![0]!.id)).toEqual(callIds);
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
    expect(messages[1]!.toolCalls).toEqual([{ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'calculator', args: { expression: '6*7' } }]);
    expect(messages[2]!.toolCallId).toBe(messages[1]!.toolCalls![0]!.id);
  });
});
