'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { openPushStream, type PushStreamStatus } from '@/lib/push-stream';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { teamKeys } from './queries';

/** How often the teams list is re-read while its stream is down (the interval it had before push). */
export const TEAM_LIST_FALLBACK_MS = 10_000;

export type TeamListStreamStatus = 'connecting' | 'live' | 'down';

const statusOf = (s: PushStreamStatus): TeamListStreamStatus => (s.state === 'open' ? 'live' : s.state === 'connecting' ? 'connecting' : 'down');

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
 * "re-read" too, so a reconnect misses nothing. Returns the stream's status: the list polls only while it is down.
 */
export function useTeamListEvents(): TeamListStreamStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<TeamListStreamStatus>('connecting');
  useEffect(() => {
    const stream = openPushStream({
      url: '/api/v1/teams/events',
      onStatus: (s) => setStatus(statusOf(s)),
      onMessage: (message) => {
        if (message.event === 'teams' && parseTeamListPush(message.data) !== undefined) {
          refreshOnPush(queryClient, { queryKey: teamKeys.list(), exact: true });
        }
      },
    });
    return () => stream.close();
  }, [queryClient]);
  return status;
}
