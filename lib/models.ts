/** Model identifiers: `scripted` (the embedded deterministic model) or `provider:model`. */

export const PROVIDERS = ['openai', 'anthropic', 'ollama'] as const;
export type Provider = (typeof PROVIDERS)[number];

export type ModelSpec = { provider: 'scripted'; model: 'scripted' } | { provider: Provider; model: string };

export const DEFAULT_MODEL = 'scripted';

/** Model names: letters, digits and . _ - : / (e.g. gpt-4.1-mini, claude-sonnet-4-5, llama3.2, org/model:tag). */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._\-:/]{0,150}$/;

/** Parse a model string, or return null when it is not `scripted` or `provider:model` with a known provider. */
export function parseModel(value: string): ModelSpec | null {
  if (value === 'scripted') return { provider: 'scripted', model: 'scripted' };
  const i = value.indexOf(':');
  if (i <= 0) return null;
  const provider = value.slice(0, i);
  const model = value.slice(i + 1);
  if (!(PROVIDERS as readonly string[]).includes(provider) || !MODEL_NAME.test(model)) return null;
  return { provider: provider as Provider, model };
}

export const MODEL_FORMAT_HINT = 'Use "scripted" or provider:model, e.g. openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:llama3.2';
