import 'server-only';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { initChatModel } from 'langchain/chat_models/universal';
import { MODEL_FORMAT_HINT, parseModel } from '@/lib/models';
import { env } from '@/server/env';
import { managedChatModelArgs } from '@/server/providers/resolve';
import { ScriptedChatModel } from './scripted-model';

/** A model the server can't build (unknown string, missing key): it fails the run that needs it, nothing else. */
export class ModelConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelConfigurationError';
  }
}

export type ModelAgent = { name: string; model: string; instructions?: string };

function requireKey(model: string, variable: string, key: string | undefined): string {
  if (!key) throw new ModelConfigurationError(`Model ${model} is not configured: set ${variable}`);
  return key;
}

/** A malformed endpoint fails the run that needs it (never falls back to the provider's own endpoint with the key). */
function endpoint(model: string, read: () => string | undefined): string | undefined {
  try {
    return read();
  } catch (err) {
    // By name: a route bundle may hold its own copy of server/env.ts.
    if (err instanceof Error && err.name === 'EnvError') throw new ModelConfigurationError(`Model ${model} is not configured: ${err.message}`);
    throw err;
  }
}

/**
 * The chat model for an agent: the embedded `scripted` model, or a real provider through langchain's
 * initChatModel. Keys and endpoints come from the environment (server/env.ts) when the run starts, so setting a
 * key and sending again works without a restart.
 */
export async function createChatModel(agent: ModelAgent): Promise<BaseChatModel> {
  const spec = parseModel(agent.model);
  if (!spec) throw new ModelConfigurationError(`Model "${agent.model}" is not valid. ${MODEL_FORMAT_HINT}`);
  switch (spec.provider) {
    case 'scripted':
      return new ScriptedChatModel({ agentName: agent.name, instructions: agent.instructions });
    case 'openai': {
      const apiKey = requireKey(agent.model, 'OPENAI_API_KEY', env.openaiApiKey);
      const baseURL = endpoint(agent.model, () => env.openaiBaseUrl);
      return initChatModel(`openai:${spec.model}`, { apiKey, maxRetries: 1, ...(baseURL ? { configuration: { baseURL } } : {}) });
    }
    case 'anthropic': {
      const apiKey = requireKey(agent.model, 'ANTHROPIC_API_KEY', env.anthropicApiKey);
      return initChatModel(`anthropic:${spec.model}`, { apiKey, maxRetries: 1 });
    }
    case 'ollama': {
      const baseUrl = endpoint(agent.model, () => env.ollamaBaseUrl);
      return initChatModel(`ollama:${spec.model}`, { ...(baseUrl ? { baseUrl } : {}) });
    }
    case 'managed':
      // A provider an admin added on the Admin page (ADR 040), read at every run start.
      return initChatModel(...(await managedChatModelArgs(spec.slug, spec.model, agent.model)));
  }
}
