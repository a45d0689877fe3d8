import 'server-only';
import type { BuiltinProviderView, ProviderKind } from '@/lib/schemas/providers';
import { unsupportedParameters } from '@/server/agents/model-call/unsupported-parameters';
import { env } from '@/server/env';

/**
 * The providers configured by environment variables (server/env.ts): shown on the Admin page read-only, never with
 * their keys. Model strings keep naming them `openai:`, `anthropic:` and `ollama:` (ADR 043).
 */
export function builtinProviders(): BuiltinProviderView[] {
  const setting = (read: () => string | undefined) => {
    try {
      return read();
    } catch {
      return undefined; // an invalid value: start-up names it; here it is simply not usable
    }
  };
  const configured = (read: () => string | undefined) => Boolean(setting(read));
  // What requests to each endpoint leave out, keyed as server/agents/providers.ts calls it.
  const refused = (kind: ProviderKind, baseUrl: () => string | undefined) => unsupportedParameters({ kind, baseUrl: setting(baseUrl) });
  return [
    {
      slug: 'openai',
      name: 'OpenAI (environment)',
      kind: 'openai',
      configured: configured(() => env.openaiApiKey),
      variables: 'OPENAI_API_KEY, OPENAI_BASE_URL',
      refusedParameters: refused('openai', () => env.openaiBaseUrl),
    },
    {
      slug: 'anthropic',
      name: 'Anthropic (environment)',
      kind: 'anthropic',
      configured: configured(() => env.anthropicApiKey),
      variables: 'ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL',
      refusedParameters: refused('anthropic', () => env.anthropicBaseUrl),
    },
    {
      slug: 'ollama',
      name: 'Ollama (environment)',
      kind: 'ollama',
      configured: configured(() => env.ollamaBaseUrl),
      variables: 'OLLAMA_BASE_URL',
      refusedParameters: refused('ollama', () => env.ollamaBaseUrl),
    },
  ];
}
