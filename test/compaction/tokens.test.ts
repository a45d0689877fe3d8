import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, openAiEncoding, tokenCounterFor } from '@/server/agents/compaction/tokens';

describe('token counting', () => {
  it('estimates ceil(UTF-8 bytes / 4) for models without a known tokenizer', async () => {
    for (const model of ['scripted', 'anthropic:claude-sonnet-4-5', 'ollama:llama3.2', 'openai:my-local-model']) {
      const counter = await tokenCounterFor(model);
      expect(counter.kind).toBe('estimate');
      expect([counter.text(''), counter.text('abcd'), counter.text('abcde'), counter.text('é'), counter.text('日本語'), counter.text('🙂🙂')]).toEqual([0, 1, 2, 1, 3, 2]);
    }
  });

  it('counts a message once (remembered by object): text, tool calls and the per-message overhead', async () => {
    const counter = await tokenCounterFor('scripted');
    const human = new HumanMessage('abcdefgh');
    expect(counter.message(human)).toBe(2 + MESSAGE_OVERHEAD_TOKENS);
    human.content = 'a much longer text than before';
    expect(counter.message(human)).toBe(2 + MESSAGE_OVERHEAD_TOKENS);
    const call = new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'echo', args: { text: 'hi' } }] });
    expect(counter.message(call)).toBe(Math.ceil('echo{"text":"hi"}'.length / 4) + MESSAGE_OVERHEAD_TOKENS);
  });

  it('uses the bundled tokenizer for OpenAI models it covers (no network), special-token text counted as text', async () => {
    expect(openAiEncoding('gpt-4.1-mini')).toBe('o200k_base');
    expect(openAiEncoding('gpt-4o')).toBe('o200k_base');
    expect(openAiEncoding('gpt-4-turbo')).toBe('cl100k_base');
    expect(openAiEncoding('my-local-model')).toBeNull();
    const o200k = await tokenCounterFor('openai:gpt-4.1-mini');
    expect(o200k.kind).toBe('tokenizer');
    expect(o200k.text('Hello world')).toBe(2);
    expect(o200k.text('<|endoftext|>')).toBeGreaterThan(1);
    // One encoder per process and encoding.
    expect(await tokenCounterFor('openai:gpt-4o')).toBe(o200k);
    const cl100k = await tokenCounterFor('openai:gpt-4');
    expect(cl100k.kind).toBe('tokenizer');
    expect(cl100k).not.toBe(o200k);
    expect(cl100k.text('Hello world')).toBe(2);
  }, 60_000);
});
