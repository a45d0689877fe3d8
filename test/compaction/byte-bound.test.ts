import { HumanMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { describe, expect, it } from 'vitest';
import { modelInput } from '@/server/agents/compaction/model-input';

// The OpenAI tokenizer costs about a second of CPU to load. An input whose UTF-8 bytes are within the threshold is
// within it for any tokenizer (a token covers at least one byte), so a short conversation must not load it.
const loaded = () => (globalThis as { __ensembleTokenCounters?: Map<string, unknown> }).__ensembleTokenCounters?.size ?? 0;
const noModel = {} as BaseChatModel; // never called: nothing is summarized below the threshold

describe('the byte bound before the tokenizer', () => {
  it('sends a short conversation whole without loading the tokenizer, and loads it only once bytes pass the threshold', async () => {
    const agent = { model: 'openai:gpt-4o', compactAtTokens: 1_000 };
    const config = { configurable: { thread_id: 'thread-byte-bound' } };
    const short = [new HumanMessage({ id: 'h1', content: 'x'.repeat(400) })];
    expect(await modelInput({ agent, model: noModel, systemPrompt: 'You are a test agent.', messages: short, config })).toEqual(short);
    expect(loaded()).toBe(0);

    // 2,000 bytes of one repeated letter: over the byte bound, far below the threshold in real tokens.
    const longer = [new HumanMessage({ id: 'h2', content: 'a '.repeat(1_000) })];
    expect(await modelInput({ agent, model: noModel, systemPrompt: 'You are a test agent.', messages: longer, config })).toEqual(longer);
    expect(loaded()).toBe(1);
  });
});
