'use client';

import { useQueryClient } from '@tanstack/react-query';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { useLiveStream, type LiveStream } from '@/lib/query/use-live-stream';
import { pushedBatch } from './batch-push';
import { batchKeys } from './queries';

/**
 * Follow one batch by push (GET /api/v1/batches/:id/events, ADR 059): each `batch` message carries the batch as it
 * is now (its status and counts), which replaces the cached one; the items page on screen is read again
 * (refreshOnPush folds a burst of item ends into one read). `follow` false — the batch has ended — closes the stream: nothing more will change unless the person
 * retries its failed items, which opens it again. While the stream is down, both are read on a followed run's
 * cadence.
 */
export function useBatchEvents(batchId: string, follow: boolean): LiveStream {
  const queryClient = useQueryClient();
  const refreshItems = () => refreshOnPush(queryClient, { queryKey: batchKeys.items(batchId) });
  const refresh = () => {
    refreshOnPush(queryClient, { queryKey: batchKeys.detail(batchId), exact: true });
    refreshItems();
  };
  return useLiveStream({
    url: follow ? `/api/v1/batches/${encodeURIComponent(batchId)}/events` : null,
    fallbackMs: LIVE_FALLBACK_MS.followedRun,
    whenClosed: 'poll',
    listen: () => ({
      onMessage: (message) => {
        if (message.event !== 'batch') return;
        const batch = pushedBatch(message.data, batchId);
        if (batch) queryClient.setQueryData(batchKeys.detail(batchId), batch);
        else refreshOnPush(queryClient, { queryKey: batchKeys.detail(batchId), exact: true });
        refreshItems();
      },
    }),
    onPoll: refresh,
  });
}
