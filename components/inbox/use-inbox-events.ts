'use client';

import { useQueryClient } from '@tanstack/react-query';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { useLiveStream, type LiveStream } from '@/lib/query/use-live-stream';
import { inboxKeys } from './queries';

/**
 * Follow the person's inbox by push (GET /api/v1/inbox/events, ADR 056): every message says "re-read", and the count
 * and the list (whichever are on screen) are read again. Opened once per tab, by the nav's count, so the Inbox page
 * needs no stream of its own; while it is down, both re-read on the teams list's cadence.
 */
export function useInboxEvents(): LiveStream {
  const queryClient = useQueryClient();
  return useLiveStream({
    url: '/api/v1/inbox/events',
    fallbackMs: LIVE_FALLBACK_MS.teamList,
    whenClosed: 'poll',
    listen: () => ({
      onMessage: (message) => {
        if (message.event === 'inbox') refreshOnPush(queryClient, { queryKey: inboxKeys.all });
      },
    }),
    onPoll: () => refreshOnPush(queryClient, { queryKey: inboxKeys.all }),
  });
}
