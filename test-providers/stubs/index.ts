import { startAnthropicStub } from './anthropic';
import type { Stub, StubHooks } from './common';
import { startOllamaStub } from './ollama';
import { startOpenAiStub } from './openai';

export type Stubs = { openai: Stub; anthropic: Stub; ollama: Stub; close(): Promise<void> };

/** One stub per provider family the app supports, each on its own loopback port. */
export async function startStubs(hooks: StubHooks = {}): Promise<Stubs> {
  const [openai, anthropic, ollama] = await Promise.all([startOpenAiStub(hooks), startAnthropicStub(hooks), startOllamaStub()]);
  return { openai, anthropic, ollama, close: async () => void (await Promise.all([openai.close(), anthropic.close(), ollama.close()])) };
}

/** The app's settings that point every provider at the stubs (keys are required by the app, never checked by them). */
export function providerEnv(stubs: Stubs): Record<string, string> {
  return {
    OPENAI_API_KEY: 'sk-stub',
    OPENAI_BASE_URL: `${stubs.openai.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-stub',
    ANTHROPIC_BASE_URL: stubs.anthropic.url,
    OLLAMA_BASE_URL: stubs.ollama.url,
  };
}
