/**
 * The inbox's reads (GET /api/v1/inbox), as TanStack factories under ['inbox', …]: the nav's count (one item read,
 * its `total`) and the page's list (pages oldest first). One push stream re-reads both (use-inbox-events.ts).
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import type { InboxPage } from '@/lib/types/inbox';

export const inboxKeys = {
  all: ['inbox'] as const,
  count: () => ['inbox', 'count'] as const,
  list: () => ['inbox', 'list'] as const,
};

/** GET /api/v1/inbox?limit=N[&after=CURSOR] */
export const fetchInboxPage = (limit: number, after: string | null, signal?: AbortSignal) => {
  const params = new URLSearchParams({ limit: String(limit) });
  if (after) params.set('after', after);
  return apiFetch<InboxPage>(`/api/v1/inbox?${params}`, { signal });
};

/** How many things wait for the person (the nav's count): the smallest page, for its total. */
export const inboxCountQuery = () =>
  queryOptions({
    queryKey: inboxKeys.count(),
    queryFn: ({ signal }) => fetchInboxPage(1, null, signal),
    select: (page) => page.total,
  });

/** The Inbox page's list, a page at a time. */
export const inboxListQuery = () =>
  infiniteQueryOptions({
    queryKey: inboxKeys.list(),
    queryFn: ({ pageParam, signal }) => fetchInboxPage(LIMITS.inbox.defaultLimit, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
