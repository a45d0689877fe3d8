/** Browser read of a run's delegated children (GET /api/v1/runs/:id/children), a TanStack `queryOptions` factory. */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { DelegationView } from '@/lib/types/delegation';
import { isPermanentRunError, runKeys } from './queries';

export const runChildrenKey = (id: string) => [...runKeys.detail(id), 'children'] as const;

const unfinished = (children: readonly DelegationView[] | undefined) => !!children?.some((c) => c.status === 'queued' || c.status === 'running');

/** The children, re-read about once a second while any of them is queued or running. */
export const runChildrenQuery = (id: string) =>
  queryOptions({
    queryKey: runChildrenKey(id),
    queryFn: ({ signal }) =>
      apiFetch<{ children: DelegationView[] }>(`/api/v1/runs/${encodeURIComponent(id)}/children`, { signal }).then((body) => body.children),
    retry: (count, e) => !isPermanentRunError(e) && count < 2,
    refetchInterval: (q) => (unfinished(q.state.data) ? 1_000 : false),
  });
