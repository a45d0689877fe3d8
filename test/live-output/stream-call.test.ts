import crypto from 'node:crypto';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { streamModelCall } from '@/server/agents/live-output/stream-call';
import { createChatModel } from '@/server/agents/providers';
import { ScriptedChatModel } from '@/server/agents/scripted-model';
import { startProviderStub, type StubTurn } from '../observe/provider-stub';

const saved = { ...process.env };
afterEach(async () => {
  process.env = { ...saved };
  vi.restoreAllMocks();
});

/** The same ids on every call (the scripted model names its messages and tool calls with random UUIDs). */
function sameIds() {
  let n = 0;
  vi.spyOn(crypto, 'randomUUID').mockImplementation(() => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`);
  return () => (n = 0);
}

/** The fields a run keeps of a response and reads from it (content, calls, usage, finish reason). */
const kept = (m: AIMessage) => ({
  id: m.id,
  content: m.content,
  tool_calls: m.tool_calls,
  invalid_tool_calls: m.invalid_tool_calls,
  usage_metadata: m.usage_metadata,
  additional_kwargs: m.additional_kwargs,
  finish_reason: m.response_metadata?.finish_reason,
});

async function streamed(model: Parameters<typeof streamModelCall>[0], input: BaseMessage[]) {
  const chunks: string[] = [];
  const message = await streamModelCall(model, input, {}, (text) => chunks.push(text));
  return { message, chunks };
}

describe('a streamed model call returns what the non-streamed call returns', () => {
  const scripts = {
    'ASCII reply': '/reply The quick  brown fox\njumps over the lazy dog.',
    'CJK and emoji reply': '/reply 東京は 晴れ 😀 🎉 今日も good',
    'tool call with text beside it': '/call calculator {"expression":"6*7"}\n/also current_time {}\n/say Checking two things first',
    'reported usage': '/reply counted\n/tokens 1000',
    'no directives (plain answer)': 'Be kind.',
  };
  for (const [name, instructions] of Object.entries(scripts)) {
    it(`scripted: ${name}`, async () => {
      const reset = sameIds();
      const model = new ScriptedChatModel({ agentName: 'Ann', instructions });
      const input = [new HumanMessage('Please help')];
      const invoked = (await model.invoke(input)) as AIMessage;
      reset();
      const { message, chunks } = await streamed(model, input);
      expect(kept(message)).toEqual(kept(invoked));
      expect(AIMessageChunk.isInstance(message)).toBe(false);
      // In order, word-sized, and joined they are the text.
      expect(chunks.join('')).toBe(invoked.content);
      if (typeof invoked.content === 'string' && invoked.content.trim().includes(' ')) expect(chunks.length).toBeGreaterThan(1);
      for (const chunk of chunks) expect(chunk.trim().includes(' ')).toBe(false);
    });
  }

  it('scripted: usage counts the whole response, as before (characters ÷ 4)', async () => {
    const model = new ScriptedChatModel({ agentName: 'Ann', instructions: '/reply abcdefgh' });
    const { message } = await streamed(model, [new HumanMessage('hi')]);
    expect(message.usage_metadata).toMatchObject({ output_tokens: 2 });
  });

  const turns: Record<string, StubTurn> = {
    'text with usage': { text: 'The answer is 42, 東京 😀.', finish: 'stop', usage: { prompt_tokens: 11, completion_tokens: 7 } },
    'tool calls with usage': { toolCalls: [{ name: 'calculator', arguments: '{"expression":"6*7"}' }, { name: 'current_time', arguments: '{}' }], finish: 'tool_calls', usage: { prompt_tokens: 5, completion_tokens: 3 } },
  };
  for (const [name, turn] of Object.entries(turns)) {
    it(`OpenAI-compatible provider: ${name}`, { timeout: 30_000 }, async () => {
      const stub = await startProviderStub([turn]);
      try {
        process.env.OPENAI_API_KEY = 'sk-test-stub';
        process.env.OPENAI_BASE_URL = stub.baseURL;
        const model = await createChatModel({ name: 'Real', model: 'openai:gpt-4.1-mini' });
        const input = [new HumanMessage('Question')];
        const invoked = (await model.invoke(input)) as AIMessage;
        const { message, chunks } = await streamed(model, input);
        // Each stub response numbers its calls (call_<response>_<i>); additional_kwargs holds the provider's raw
        // copy of the calls (LangChain's streamed copy keeps their `index`), which requests never send when
        // tool_calls are present.
        const strip = (m: AIMessage) => ({
          ...kept(m),
          id: undefined,
          additional_kwargs: undefined,
          tool_calls: m.tool_calls?.map((c) => ({ ...c, id: c.id?.replace(/^call_\d+_/, 'call_') })),
          usage: m.usage_metadata && { input: m.usage_metadata.input_tokens, output: m.usage_metadata.output_tokens, total: m.usage_metadata.total_tokens },
          usage_metadata: undefined,
        });
        expect(strip(message)).toEqual(strip(invoked));
        expect(message.usage_metadata).toMatchObject({ input_tokens: turn.usage!.prompt_tokens, output_tokens: turn.usage!.completion_tokens });
        expect(message.response_metadata.finish_reason).toBe(turn.finish);
        expect(chunks.join('')).toBe(turn.text ?? '');
        if (turn.text) expect(chunks.length).toBeGreaterThan(3);
      } finally {
        await stub.close();
      }
    });
  }

  it('OpenAI-compatible provider: usage the provider leaves out stays out', { timeout: 30_000 }, async () => {
    const stub = await startProviderStub([{ text: 'No usage here.', finish: 'stop' }]);
    try {
      process.env.OPENAI_API_KEY = 'sk-test-stub';
      process.env.OPENAI_BASE_URL = stub.baseURL;
      const model = await createChatModel({ name: 'Real', model: 'openai:gpt-4.1-mini' });
      const { message } = await streamed(model, [new HumanMessage('Question')]);
      expect(message.usage_metadata).toBeUndefined();
      expect(message.content).toBe('No usage here.');
    } finally {
      await stub.close();
    }
  });

  it('a model that can only invoke is called once and returned as it answered', async () => {
    const answer = new AIMessage({ id: 'x1', content: 'whole', tool_calls: [] });
    const model = { stream: async () => (async function* () { yield answer; })() };
    const { message, chunks } = await streamed(model, [new ToolMessage({ content: 'r', tool_call_id: 'c' })]);
    expect(message).toBe(answer);
    expect(chunks).toEqual(['whole']);
  });
});
