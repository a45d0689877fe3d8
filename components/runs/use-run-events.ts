'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { followInterval, type RunEventsFollow } from './event-follow';
import { runEventsFollowQuery, runKeys } from './queries';

/**
 * A run's events, followed live: the first read starts at after=0, each later one asks after the last seq held,
 * about once a second (TanStack's refetchInterval; paused while the tab is hidden) until the run has finished and
 * every event was read. This is the one place that decides how new events arrive: a push channel replaces the
 * interval here and nothing else changes. New model calls or the run's end refresh the run's detail (its totals).
 */
export function useRunEvents(runId: string) {
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
    // A permanent failure (the run is gone) stops asking; a passing one keeps the held events and tries again.
    refetchInterval: (q) => (q.state.status === 'error' && !q.state.data ? false : followInterval(q.state.data)),
  });
}
