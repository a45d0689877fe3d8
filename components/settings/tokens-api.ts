import { apiFetch } from '@/lib/api-client';
import type { ApiTokenView, CreatedApiToken, CreateTokenInput } from '@/lib/schemas/auth';

export const tokenKeys = { list: ['api-tokens'] as const };

/** The Settings page's calls to /api/v1/tokens (the same API a script would use). */
export const tokensApi = {
  list: () => apiFetch<{ tokens: ApiTokenView[] }>('/api/v1/tokens').then((r) => r.tokens),
  create: (input: CreateTokenInput) => apiFetch<CreatedApiToken>('/api/v1/tokens', { method: 'POST', json: input }),
  revoke: (id: string) => apiFetch<void>(`/api/v1/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' }),
};
