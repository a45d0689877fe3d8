import 'server-only';

/**
 * Where a real model is served: its kind (the wire protocol), its endpoint (undefined: the provider's own) and its
 * key. What the environment configures today (server/env.ts), and what a provider managed elsewhere passes later.
 */
export type ProviderDescriptor = {
  kind: 'openai' | 'anthropic' | 'ollama';
  baseUrl?: string;
  apiKey?: string;
  /** Its own caps on calls (a managed provider's); absent: the instance defaults (server/providers/capacity). */
  limits?: { maxConcurrent?: number | null; requestsPerMinute?: number | null };
};

/** One provider's identity for what is learned about it (the key is no part of it: rotating it changes nothing). */
export const providerKey = (provider: Pick<ProviderDescriptor, 'kind' | 'baseUrl'>): string =>
  `${provider.kind} ${provider.baseUrl ? provider.baseUrl.replace(/\/+$/, '') : '(default)'}`;
