'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { openPushStream } from '@/lib/push-stream';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { runChildrenKey } from './children-query';
import { followInterval, isFollowDone, type RunEventsFollow } from './event-follow';
import { runEventsFollowQuery, runKeys } from './queries';
import { createCatchUp, parseRunPush, runStreamStatusOf, type RunStreamStatus } from './run-push';

/**
 * A run's events, followed live by push (ADR 030): after the first read, while the run may still change, the panel
 * holds the run's event stream open (lib/push-stream: heartbeats, Last-Event-ID, Retry-After); each message is the
 * run's head and starts a read `after` the last seq held (run-push.ts), and re-reads its delegated children. The stream
 * closes once the run has finished and every event was read. While the stream is down — or a read failed — the
 * events are re-read about once a second instead, as before push. New model calls or the run's end refresh the
 * run's detail (its totals).
 */
export function useRunEvents(runId: string): { query: ReturnType<typeof useFollowQuery>; stream: RunStreamStatus } {
  const client = useQueryClient();
  const [stream, setStream] = useState<RunStreamStatus>('connecting');
  const query = useFollowQuery(runId, stream);
  const done = isFollowDone(query.data);
  // The stream opens after the first read: a panel over a finished run (most of a history) never opens one, and
  // the stream's first message (the head now) covers anything written after that read.
  const held = query.data !== undefined;

  useEffect(() => {
    if (!held || done) return;
    const key = runKeys.events(runId);
    const catchUp = createCatchUp(
      // Joins a read already on its way instead of cancelling it (a flood would otherwise starve every read).
      () => client.refetchQueries({ queryKey: key, exact: true }, { cancelRefetch: false }),
      () => client.getQueryData<RunEventsFollow>(key),
    );
    const handle = openPushStream({
      url: `/api/v1/runs/${encodeURIComponent(runId)}/events/stream`,
      onStatus: (s) => setStream(runStreamStatusOf(s)),
      onMessage: (message) => {
        const head = message.event === 'run' ? parseRunPush(message.data, runId) : null;
        if (!head) return;
        catchUp.heard(head);
        // A child's start or end is announced as a change of this run (only a shown child list refetches).
        refreshOnPush(client, { queryKey: runChildrenKey(runId), exact: true });
      },
    });
    return () => handle.close();
  }, [client, runId, held, done]);

  return { query, stream: done ? 'live' : stream };
}

function useFollowQuery(runId: string, stream: RunStreamStatus) {
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
    refetchInterval: (q) => {
      // A permanent failure (the run is gone) stops asking; a passing one keeps the held events and tries again.
      if (q.state.status === 'error') return q.state.data ? followInterval(q.state.data) : false;
      return stream === 'down' ? followInterval(q.state.data) : false;
    },
  });
}
