/**
 * The Settings page's reads, as TanStack `queryOptions` factories under ['tokens', …]; creating and revoking are
 * server actions (settings-actions.tsx).
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { ApiTokenList } from '@/lib/types/api-tokens';

export const tokenKeys = {
  all: ['tokens'] as const,
  list: ['tokens', 'list'] as const,
};

/** GET /api/v1/tokens */
export const fetchTokens = (signal?: AbortSignal) => apiFetch<ApiTokenList>('/api/v1/tokens', { signal });

export const tokenListQuery = () =>
  queryOptions({ queryKey: tokenKeys.list, queryFn: ({ signal }) => fetchTokens(signal), select: (r) => r.tokens });
