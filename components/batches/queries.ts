/**
 * The batches' reads (docs/api.md "Batches"), one fetch and one TanStack factory per endpoint, under ['batches', …]:
 * the list (newest first, a page at a time), one batch (its counts, followed by push: use-batch-events.ts) and a
 * page of its items (keyset pages, filtered by status). The export is a download, not a query (batch-actions.tsx).
 */
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import { LIMITS } from '@/lib/limits';
import type { BatchItemStatus, BatchItemsPage, BatchListPage, BatchView } from '@/lib/types/batch';

/** An item filter: one status, or every item. */
export type ItemFilter = BatchItemStatus | 'all';

export const batchKeys = {
  all: ['batches'] as const,
  list: () => ['batches', 'list'] as const,
  detail: (id: string) => ['batches', id] as const,
  /** Every items page of one batch (what a push re-reads). */
  items: (id: string) => ['batches', id, 'items'] as const,
  itemsPage: (id: string, filter: ItemFilter, cursor: string | null) => ['batches', id, 'items', filter, cursor] as const,
};

const batchPath = (id: string) => `/api/v1/batches/${encodeURIComponent(id)}`;

/** A missing batch (or another owner's) or a lost session answers the same when asked again. */
const retry = (count: number, e: Error) => !(e instanceof ApiError && [401, 403, 404].includes(e.status)) && count < 2;

/** GET /api/v1/batches?limit=N[&cursor=C] */
export const fetchBatchList = (cursor: string | null, signal?: AbortSignal) => {
  const params = new URLSearchParams({ limit: String(LIMITS.batch.page.default) });
  if (cursor) params.set('cursor', cursor);
  return apiFetch<BatchListPage>(`/api/v1/batches?${params}`, { signal });
};

/** GET /api/v1/batches/:id */
export const fetchBatch = (id: string, signal?: AbortSignal) => apiFetch<{ batch: BatchView }>(batchPath(id), { signal }).then((r) => r.batch);

/** GET /api/v1/batches/:id/items?limit=N[&status=S][&cursor=C] */
export const fetchBatchItems = (id: string, filter: ItemFilter, cursor: string | null, signal?: AbortSignal) => {
  const params = new URLSearchParams({ limit: String(ITEMS_PAGE_SIZE) });
  if (filter !== 'all') params.set('status', filter);
  if (cursor) params.set('cursor', cursor);
  return apiFetch<BatchItemsPage>(`${batchPath(id)}/items?${params}`, { signal });
};

/** Items per page of the table: a screenful, well under the API's page maximum. */
export const ITEMS_PAGE_SIZE = 25;

/** The person's batches, newest first. */
export const batchListQuery = () =>
  infiniteQueryOptions({
    queryKey: batchKeys.list(),
    queryFn: ({ pageParam, signal }) => fetchBatchList(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });

/** One batch: status, counts, target, template. */
export const batchDetailQuery = (id: string) =>
  queryOptions({
    queryKey: batchKeys.detail(id),
    queryFn: ({ signal }) => fetchBatch(id, signal),
    retry,
  });

/** One page of one batch's items (`cursor` null: the first page). */
export const batchItemsQuery = (id: string, filter: ItemFilter, cursor: string | null) =>
  queryOptions({
    queryKey: batchKeys.itemsPage(id, filter, cursor),
    queryFn: ({ signal }) => fetchBatchItems(id, filter, cursor, signal),
    retry,
  });

/** GET /api/v1/batches/:id/export?format=… (an attachment). */
export const batchExportUrl = (id: string, format: 'csv' | 'jsonl') => `${batchPath(id)}/export?format=${format}`;
