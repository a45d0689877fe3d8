/** Browser read of a run's delegated children (GET /api/v1/runs/:id/children), a TanStack `queryOptions` factory. */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { DelegationView } from '@/lib/types/delegation';
import { isPermanentRunError, runKeys } from './queries';

export const runChildrenKey = (id: string) => [...runKeys.detail(id), 'children'] as const;

const unfinished = (children: readonly DelegationView[] | undefined) => !!children?.some((c) => c.status === 'queued' || c.status === 'running');

/**
 * The children. While the parent's run stream is up they are re-read when it says the run changed (a child
 * started, finished or was accepted: use-run-events.ts); `poll` is for when it is down: then about once a second
 * while any child is queued or running.
 */
export const runChildrenQuery = (id: string, poll = false) =>
  queryOptions({
    queryKey: runChildrenKey(id),
    queryFn: ({ signal }) =>
      apiFetch<{ children: DelegationView[] }>(`/api/v1/runs/${encodeURIComponent(id)}/children`, { signal }).then((body) => body.children),
    retry: (count, e) => !isPermanentRunError(e) && count < 2,
    refetchInterval: (q) => (poll && unfinished(q.state.data) ? LIVE_FALLBACK_MS.followedRun : false),
    refetchIntervalInBackground: false,
    // Shown again while the parent's stream is down: read at once (as the other live views do, lib/query/live-connection.ts).
    refetchOnWindowFocus: poll ? 'always' : false,
  });
