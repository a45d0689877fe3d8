import 'server-only';
import type { BuiltinProviderView } from '@/lib/schemas/providers';
import { env } from '@/server/env';

/**
 * The providers configured by environment variables (server/env.ts): shown on the Admin page read-only, never with
 * their keys. Model strings keep naming them `openai:`, `anthropic:` and `ollama:` (ADR 043).
 */
export function builtinProviders(): BuiltinProviderView[] {
  const configured = (read: () => string | undefined) => {
    try {
      return Boolean(read());
    } catch {
      return false; // an invalid value: start-up names it; here it is simply not usable
    }
  };
  return [
    { slug: 'openai', name: 'OpenAI (environment)', kind: 'openai', configured: configured(() => env.openaiApiKey), variables: 'OPENAI_API_KEY, OPENAI_BASE_URL' },
    { slug: 'anthropic', name: 'Anthropic (environment)', kind: 'anthropic', configured: configured(() => env.anthropicApiKey), variables: 'ANTHROPIC_API_KEY' },
    { slug: 'ollama', name: 'Ollama (environment)', kind: 'ollama', configured: configured(() => env.ollamaBaseUrl), variables: 'OLLAMA_BASE_URL' },
  ];
}
