import { apiFetch } from '@/lib/api-client';
import type { ApiTokenView } from '@/lib/schemas/auth';

export const tokenKeys = { list: ['api-tokens'] as const };

/** The Settings page's read of /api/v1/tokens; creating and revoking are server actions (settings-actions.tsx). */
export const tokensApi = {
  list: () => apiFetch<{ tokens: ApiTokenView[] }>('/api/v1/tokens').then((r) => r.tokens),
};
