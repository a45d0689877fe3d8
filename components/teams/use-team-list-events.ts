'use client';

import { useQueryClient } from '@tanstack/react-query';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { useLiveStream, type LiveStream } from '@/lib/query/use-live-stream';
import { teamKeys } from './queries';

/** Parse one message's data: the changed team ids, or null for "re-read"; undefined when it is not one of ours. */
export function parseTeamListPush(raw: string): string[] | null | undefined {
  try {
    const data = JSON.parse(raw) as { teamIds?: unknown };
    if (data?.teamIds === null) return null;
    if (Array.isArray(data?.teamIds) && data.teamIds.every((t) => typeof t === 'string')) return data.teamIds as string[];
  } catch {
    // Not JSON: not one of ours.
  }
  return undefined;
}

/**
 * Follow the owner's teams by push (GET /teams/events, ADR 030): a message says some of them changed (statuses,
 * waiting work, a deletion) and the list — one small read — is re-read; the first message of each connection says
 * "re-read" too, so a reconnect misses nothing. The list polls only while the stream is down (`poll`); a stream
 * stopped for good polls too, so the list's own read shows why.
 */
export function useTeamListEvents(): LiveStream {
  const queryClient = useQueryClient();
  return useLiveStream({
    url: '/api/v1/teams/events',
    fallbackMs: LIVE_FALLBACK_MS.teamList,
    whenClosed: 'poll',
    listen: () => ({
      onMessage: (message) => {
        if (message.event === 'teams' && parseTeamListPush(message.data) !== undefined) {
          refreshOnPush(queryClient, { queryKey: teamKeys.list(), exact: true });
        }
      },
    }),
  });
}
