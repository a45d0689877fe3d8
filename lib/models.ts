/**
 * Model identifiers: `scripted` (the embedded deterministic model), `provider:model` for a provider configured
 * by environment variables (openai, anthropic, ollama), or `slug:model` for a provider an admin added in the app
 * (docs/decisions/043): the slug is the provider's name in model strings.
 */

/** The built-in providers, configured by environment variables (server/env.ts). */
export const PROVIDERS = ['openai', 'anthropic', 'ollama'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Slugs a managed provider can't take: the built-in ones and the embedded model keep their meaning. */
export const RESERVED_PROVIDER_SLUGS: readonly string[] = [...PROVIDERS, 'scripted'];

/** A managed provider's slug: 1 to 32 lowercase ASCII letters, digits and inner hyphens (e.g. "groq", "lab-vllm"). */
export const PROVIDER_SLUG = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

export type ModelSpec =
  | { provider: 'scripted'; model: 'scripted' }
  | { provider: Provider; model: string }
  | { provider: 'managed'; slug: string; model: string };

export const DEFAULT_MODEL = 'scripted';

/** Model names: letters, digits and . _ - : / (e.g. gpt-4.1-mini, claude-sonnet-4-5, llama3.2, org/model:tag). */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._\-:/]{0,150}$/;

/**
 * Parse a model string, or return null when it is not `scripted`, `provider:model` with a built-in provider, or
 * `slug:model` with a well-formed slug. Whether a managed slug names an existing provider is for the server to
 * say when the run starts (a provider can be removed after the agent was saved).
 */
export function parseModel(value: string): ModelSpec | null {
  if (value === 'scripted') return { provider: 'scripted', model: 'scripted' };
  const i = value.indexOf(':');
  if (i <= 0) return null;
  const provider = value.slice(0, i);
  const model = value.slice(i + 1);
  if (!MODEL_NAME.test(model)) return null;
  if ((PROVIDERS as readonly string[]).includes(provider)) return { provider: provider as Provider, model };
  if (provider === 'scripted' || !PROVIDER_SLUG.test(provider)) return null;
  return { provider: 'managed', slug: provider, model };
}

export const MODEL_FORMAT_HINT =
  'Use "scripted" or provider:model, e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:llama3.2, or a provider added on the Admin page (its-name:model)';
