'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { LiveConnection, LivePoll } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { useLiveStream } from '@/lib/query/use-live-stream';
import { runChildrenKey } from './children-query';
import { followInterval, isFollowDone, type RunEventsFollow } from './event-follow';
import { runEventsFollowQuery, runKeys } from './queries';
import { createCatchUp, parseRunPush } from './run-push';

/**
 * A run's events, followed live by push (ADR 030): after the first read, while the run may still change, the panel
 * holds the run's event stream open (lib/query/use-live-stream.ts); each message is the run's head and starts a read
 * `after` the last seq held (run-push.ts), and re-reads its delegated children. The stream closes once the run has
 * finished and every event was read. While the stream is down (a stream stopped for good counts as down: the
 * panel's own read then shows why) — or a read failed — the events are re-read every LIVE_FALLBACK_MS.followedRun
 * instead, as before push. New model calls or the run's end refresh the run's detail (its totals).
 */
export function useRunEvents(runId: string): { query: ReturnType<typeof useFollowQuery>; connection: LiveConnection; polling: boolean } {
  const client = useQueryClient();
  const key = runKeys.events(runId);
  // The stream opens after the first read: a panel over a finished run (most of a history) never opens one, and
  // the stream's first message (the head now) covers anything written after that read. Read from the cache: this
  // component re-renders when that read lands, through the query below.
  const held = client.getQueryData<RunEventsFollow>(key);
  const open = held !== undefined && !isFollowDone(held);
  const live = useLiveStream({
    url: open ? `/api/v1/runs/${encodeURIComponent(runId)}/events/stream` : null,
    fallbackMs: LIVE_FALLBACK_MS.followedRun,
    whenClosed: 'poll',
    listen: () => {
      const catchUp = createCatchUp(
        // Joins a read already on its way instead of cancelling it (a flood would otherwise starve every read).
        () => client.refetchQueries({ queryKey: key, exact: true }, { cancelRefetch: false }),
        () => client.getQueryData<RunEventsFollow>(key),
      );
      return {
        onMessage: (message) => {
          const head = message.event === 'run' ? parseRunPush(message.data, runId) : null;
          if (!head) return;
          catchUp.heard(head);
          // A child's start or end is announced as a change of this run (only a shown child list refetches).
          refreshOnPush(client, { queryKey: runChildrenKey(runId), exact: true });
        },
      };
    },
  });
  const query = useFollowQuery(runId, live.polling, live.poll);
  return { query, connection: live.connection, polling: live.polling };
}

function useFollowQuery(runId: string, polling: boolean, poll: LivePoll) {
  const client = useQueryClient();
  const options = useMemo(
    () =>
      runEventsFollowQuery(
        runId,
        () => client.getQueryData<RunEventsFollow>(runKeys.events(runId)),
        () => void client.invalidateQueries({ queryKey: runKeys.detail(runId), exact: true }),
      ),
    [client, runId],
  );
  return useQuery({
    ...options,
    ...poll,
    refetchInterval: (q) => {
      // A permanent failure (the run is gone) stops asking; a passing one keeps the held events and tries again.
      if (q.state.status === 'error') return q.state.data ? followInterval(q.state.data) : false;
      return polling ? followInterval(q.state.data) : false;
    },
  });
}
