/**
 * The kinds of provider an admin can add (ADR 043), their labels, usual addresses and field bounds. No zod here: the
 * Admin page shows these with its first load, and lib/schemas/providers.ts (zod) checks the form only once used.
 */

export const PROVIDER_KINDS = ['openai', 'anthropic', 'ollama'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export const PROVIDER_KIND_LABELS: Record<ProviderKind, string> = {
  openai: 'OpenAI-compatible',
  anthropic: 'Anthropic',
  ollama: 'Ollama',
};

/** Where each kind usually answers; the form starts from it. */
export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://localhost:11434',
};

export const PROVIDER_LIMITS = { name: { maxChars: 60 }, baseUrl: { maxChars: 500 }, apiKey: { maxChars: 500 } } as const;
