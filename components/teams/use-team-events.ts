'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { NO_FEED_FILTER, type FeedFilter } from '@/lib/feed-filter';
import { openPushStream, type PushStreamStatus } from '@/lib/push-stream';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { clearLiveOutput, jobOutputKey, parseOutputPush, setLiveOutput } from '@/components/live-output/store';
import { runKeys } from '@/components/runs/queries';
import { feedRevision, mergeChanges, type ActivityFeed } from './activity-cache';
import { createFeedSync } from './feed-sync';
import { fetchActivityChanges, teamKeys } from './queries';

/** How often the feed asks `activity?since=` while its stream is down (the footer names the figure). */
export const FALLBACK_POLL_MS = 5_000;

/** The live view's connection (not a team status), as the footer tells it. */
export type LiveConnection =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'polling'; everySeconds: number }
  | { state: 'stopped'; status: number };

/** The stream's status as the page tells it; `fallbackMs` is what the page polls at while the stream is down. */
export function liveConnection(status: PushStreamStatus, fallbackMs = FALLBACK_POLL_MS): LiveConnection {
  switch (status.state) {
    case 'connecting':
      return { state: 'connecting' };
    case 'open':
      return { state: 'live' };
    case 'down':
      return { state: 'polling', everySeconds: fallbackMs / 1_000 };
    case 'closed':
      return { state: 'stopped', status: status.status };
  }
}

type TeamPush = { teamId: string; revision: number; jobIds: string[] | null };

/**
 * Read what changed since the feed's revision and patch it in: the changed jobs by setQueryData, the team itself
 * (member statuses, counts), its state panel, why its queued jobs wait and the changed jobs' runs by invalidation (only what is on screen
 * refetches).
 */
async function syncFeed(queryClient: QueryClient, teamId: string, filter: FeedFilter): Promise<void> {
  const key = teamKeys.activity(teamId, filter);
  const since = feedRevision(queryClient.getQueryData<ActivityFeed>(key));
  // No feed yet: its first read (or the server's prefetch) brings the current state.
  if (since === undefined) return;
  const changes = await fetchActivityChanges(teamId, since, undefined, filter);
  const feed = queryClient.getQueryData<ActivityFeed>(key);
  if (!feed) return;
  const result = mergeChanges(feed, changes);
  if (result.kind === 'unchanged') return;
  if (result.kind === 'reload') await queryClient.invalidateQueries({ queryKey: key });
  else queryClient.setQueryData<ActivityFeed>(key, result.feed);
  refreshOnPush(queryClient, { queryKey: teamKeys.detail(teamId), exact: true });
  refreshOnPush(queryClient, { queryKey: teamKeys.state(teamId) });
  refreshOnPush(queryClient, { queryKey: teamKeys.waiting(teamId) });
  if (result.kind === 'merged') {
    for (const job of result.changed) if (job.run) refreshOnPush(queryClient, { queryKey: runKeys.detail(job.run.id) });
    // A job that stopped running shows its result (or its question, or why it ended) instead of its live output.
    for (const job of result.changed) if (job.status !== 'running') clearLiveOutput(jobOutputKey(job.id));
  }
}

/**
 * Keeps an open workspace current: one event stream per team; each message that moves the team past the feed's
 * revision fetches `activity?since=` (one read at a time, feed-sync.ts).
 * While the stream is down the same read runs every FALLBACK_POLL_MS. `refresh()` reads now (after the page's own
 * mutations, so their effect shows without waiting for the push).
 */
export function useTeamEvents(teamId: string, filter: FeedFilter = NO_FEED_FILTER): { connection: LiveConnection; refresh: () => void } {
  const queryClient = useQueryClient();
  const [connection, setConnection] = useState<LiveConnection>({ state: 'connecting' });
  const sync = useRef<((force: boolean) => void) | null>(null);
  // The feed on screen is the current filter's; a new filter must not reopen the stream.
  const currentFilter = useRef(filter);
  useEffect(() => {
    currentFilter.current = filter;
  }, [filter]);

  useEffect(() => {
    let pushed = -1;
    // The jobs this workspace holds live output for: forgotten when it closes (a new stream's first messages bring
    // whatever is still being written).
    const liveJobs = new Set<string>();
    const feedSync = createFeedSync({
      read: () => syncFeed(queryClient, teamId, currentFilter.current),
      behind: () => {
        const at = feedRevision(queryClient.getQueryData<ActivityFeed>(teamKeys.activity(teamId, currentFilter.current)));
        return at !== undefined && pushed > at;
      },
      retryMs: FALLBACK_POLL_MS,
    });
    sync.current = feedSync.request;

    const stream = openPushStream({
      url: `/api/v1/teams/${encodeURIComponent(teamId)}/events`,
      onStatus: (status) => setConnection(liveConnection(status)),
      onMessage: (message) => {
        if (message.event === 'output') {
          const output = parseOutputPush(message.data, { field: 'teamId', id: teamId });
          if (!output?.jobId) return;
          const { jobId, ...live } = output;
          liveJobs.add(jobOutputKey(jobId));
          setLiveOutput(jobOutputKey(jobId), live);
          return;
        }
        if (message.event !== 'team') return;
        const push = JSON.parse(message.data) as TeamPush;
        pushed = Math.max(pushed, push.revision);
        feedSync.request(false);
      },
    });
    return () => {
      stream.close();
      feedSync.dispose();
      sync.current = null;
      for (const key of liveJobs) clearLiveOutput(key);
    };
  }, [queryClient, teamId]);

  // A feed that arrives after a message (first read still in flight) catches up with what was announced.
  const feedAt = feedRevision(queryClient.getQueryData<ActivityFeed>(teamKeys.activity(teamId, filter)));
  useEffect(() => {
    if (feedAt !== undefined) sync.current?.(false);
  }, [feedAt]);

  // Back to a filter cached earlier: catch it up at once, whatever was announced while it was off screen.
  const filterId = JSON.stringify([filter.member, filter.status, filter.text]);
  const shownFilter = useRef(filterId);
  useEffect(() => {
    if (shownFilter.current === filterId) return;
    shownFilter.current = filterId;
    sync.current?.(true);
  }, [filterId]);

  // A hidden tab skips its polls (the stream, when it is back, or becoming visible catches it up at once).
  const polling = connection.state === 'polling';
  useEffect(() => {
    if (!polling) return;
    const tick = () => {
      if (document.visibilityState !== 'hidden') sync.current?.(true);
    };
    const timer = setInterval(tick, FALLBACK_POLL_MS);
    document.addEventListener('visibilitychange', tick);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', tick);
    };
  }, [polling]);

  const refresh = useCallback(() => sync.current?.(true), []);
  return { connection, refresh };
}
