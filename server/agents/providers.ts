import 'server-only';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';
import { MODEL_FORMAT_HINT, parseModel } from '@/lib/models';
import { env } from '@/server/env';
import { providerLimits } from '@/server/providers/capacity/limits';
import type { ProviderLimits } from '@/server/providers/capacity/provider-calls';
import { resolveProvider } from '@/server/providers/resolve';
import { adaptiveFetch } from './model-call/adaptive-fetch';
import { OpenAiCompletions } from './model-call/openai-completions';
import { providerKey, type ProviderDescriptor } from './model-call/provider';
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
 * The chat model for an agent: the embedded `scripted` model, or a real provider (chatModelFor). Keys and endpoints
 * come from the environment (server/env.ts) when the run starts, so setting a key and sending again works without a
 * restart.
 */
export async function createChatModel(agent: ModelAgent): Promise<BaseChatModel> {
  const spec = parseModel(agent.model);
  if (!spec) throw new ModelConfigurationError(`Model "${agent.model}" is not valid. ${MODEL_FORMAT_HINT}`);
  switch (spec.provider) {
    case 'scripted':
      return new ScriptedChatModel({ agentName: agent.name, instructions: agent.instructions });
    case 'openai': {
      const apiKey = requireKey(agent.model, 'OPENAI_API_KEY', env.openaiApiKey);
      return chatModelFor({ kind: 'openai', apiKey, baseUrl: endpoint(agent.model, () => env.openaiBaseUrl) }, spec.model);
    }
    case 'anthropic': {
      const apiKey = requireKey(agent.model, 'ANTHROPIC_API_KEY', env.anthropicApiKey);
      return chatModelFor({ kind: 'anthropic', apiKey, baseUrl: endpoint(agent.model, () => env.anthropicBaseUrl) }, spec.model);
    }
    case 'ollama':
      return chatModelFor({ kind: 'ollama', baseUrl: endpoint(agent.model, () => env.ollamaBaseUrl) }, spec.model);
    case 'managed':
      // A provider an admin added on the Admin page (ADR 043), read at every run start.
      return chatModelFor(await resolveProvider(spec.slug, agent.model), spec.model);
  }
}

/**
 * A provider's model. The clients' own retries are off (`maxRetries: 0`): model-call/retry.ts is the one retry
 * policy, so attempts are counted, recorded and shown once. Every request goes through adaptiveFetch (parameters a
 * provider refused are left out). An OpenAI-compatible stream whose deltas carry no role is read as the assistant's,
 * and one cut before its finish reason is an error, not an answer (model-call/openai-completions.ts).
 */
export function chatModelFor(provider: ProviderDescriptor, model: string): BaseChatModel {
  const chatModel = providerModel(provider, model);
  capacities.set(chatModel, { providerKey: providerKey(provider), limits: providerLimits(provider.limits) });
  return chatModel;
}

/** Which provider's capacity a model's calls take (server/providers/capacity); none for the embedded model. */
export type ModelCapacity = { providerKey: string; limits: ProviderLimits };

const capacities = new WeakMap<object, ModelCapacity>();

/** The capacity a model built by chatModelFor takes (undefined: the scripted model, which takes none). */
export const capacityOf = (model: object): ModelCapacity | undefined => capacities.get(model);

function providerModel(provider: ProviderDescriptor, model: string): BaseChatModel {
  const fetch = adaptiveFetch(provider);
  switch (provider.kind) {
    case 'openai': {
      // A local OpenAI-compatible server may need no key, but the client refuses to start without one.
      const fields = { model, apiKey: provider.apiKey ?? 'none', maxRetries: 0, configuration: { fetch, ...(provider.baseUrl ? { baseURL: provider.baseUrl } : {}) } };
      return new ChatOpenAI({ ...fields, completions: new OpenAiCompletions(fields) });
    }
    case 'anthropic':
      // The base URL is passed even when unset (the provider's own), so the client never reads ANTHROPIC_BASE_URL itself.
      // The client adds /v1/messages: a base written with its /v1 (as the model list's check takes it, discovery.ts) is
      // used without it.
      return new ChatAnthropic({
        model,
        apiKey: provider.apiKey,
        maxRetries: 0,
        anthropicApiUrl: (provider.baseUrl ?? 'https://api.anthropic.com').replace(/\/v1\/?$/, ''),
        clientOptions: { fetch },
      });
    case 'ollama':
      // Ollama's default endpoint is passed too, so the client never reads OLLAMA_BASE_URL itself (env.ts checked it).
      return new ChatOllama({ model, maxRetries: 0, fetch, baseUrl: provider.baseUrl ?? 'http://127.0.0.1:11434' });
  }
}
