/** Browser reads of one run (its detail and its events), as TanStack `queryOptions` factories under ['runs', id]. */
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import type { RunResponse } from '@/lib/types/conversation';
import type { ApiRunEventsPage } from '@/lib/types/run-events';
import { EVENTS_PAGE_LIMIT, addsRunFigures, emptyFollow, isFollowDone, readForward, type RunEventsFollow } from './event-follow';

export const runKeys = {
  all: ['runs'] as const,
  detail: (id: string) => ['runs', id] as const,
  /**
   * The events read so far. One entry that grows page by page (each read asks `after` its last seq) rather than
   * one entry per page: a run is held once, and reopening a panel continues where it stopped.
   */
  events: (id: string) => ['runs', id, 'events'] as const,
};

const runPath = (id: string) => `/api/v1/runs/${encodeURIComponent(id)}`;

/** A missing run (or another owner's), or a lost session, won't answer differently if asked again. */
export const isPermanentRunError = (e: unknown) => e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404);
const retry = (count: number, e: unknown) => !isPermanentRunError(e) && count < 2;

export const fetchRun = (id: string, signal?: AbortSignal) => apiFetch<RunResponse>(runPath(id), { signal });

export const fetchRunEventsPage = (id: string, after: number, signal?: AbortSignal, limit = EVENTS_PAGE_LIMIT) =>
  apiFetch<ApiRunEventsPage>(`${runPath(id)}/events?${new URLSearchParams({ after: String(after), limit: String(limit) })}`, {
    signal,
  });

/** GET /api/v1/runs/:id — status, token totals, assembly. Refreshed by the events follower when figures change. */
export const runDetailQuery = (id: string) =>
  queryOptions({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) => fetchRun(id, signal),
    retry,
  });

/**
 * The followed events: each read continues from the last seq already in the cache (never re-reading the run),
 * so collapsing and reopening a panel costs one small request. `previous` reads that cache entry.
 */
export const runEventsFollowQuery = (
  id: string,
  previous: () => RunEventsFollow | undefined,
  /** Called when a read brought model calls or the run's end: the run's detail (totals, status) is stale. */
  onFigures: () => void = () => {},
) =>
  queryOptions({
    queryKey: runKeys.events(id),
    queryFn: async ({ signal }) => {
      const before = previous() ?? emptyFollow(id);
      const next = await readForward(before, (after) => fetchRunEventsPage(id, after, signal));
      if (addsRunFigures(before, next)) onFigures();
      return next;
    },
    staleTime: (q) => (isFollowDone(q.state.data) ? Infinity : 0),
    retry,
  });
