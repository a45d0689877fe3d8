'use client';

import { useCallback, useEffect, useRef } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { NO_FEED_FILTER, type FeedFilter } from '@/lib/feed-filter';
import { createFeedSync } from '@/lib/feed-sync';
import type { LiveConnection } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { refreshOnPush } from '@/lib/query/refresh-on-push';
import { useLiveStream } from '@/lib/query/use-live-stream';
import { clearLiveOutput, jobOutputKey, parseOutputPush, setLiveOutput } from '@/components/live-output/store';
import { applyFilePush } from '@/components/files/file-push';
import { runKeys } from '@/components/runs/queries';
import { feedRevision, mergeChanges, type ActivityFeed } from './activity-cache';
import { fetchActivityChanges, teamKeys } from './queries';

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
 * Keeps an open workspace current: one event stream per team (lib/query/use-live-stream.ts); each message that moves
 * the team past the feed's revision fetches `activity?since=` (one read at a time, lib/feed-sync.ts). While the
 * stream is down the same read runs every LIVE_FALLBACK_MS.openThread. `refresh()` reads now (after the page's own
 * mutations, so their effect shows without waiting for the push).
 */
export function useTeamEvents(teamId: string, filter: FeedFilter = NO_FEED_FILTER): { connection: LiveConnection; refresh: () => void } {
  const queryClient = useQueryClient();
  const sync = useRef<((force: boolean) => void) | null>(null);
  // The feed on screen is the current filter's; a new filter must not reopen the stream.
  const currentFilter = useRef(filter);
  useEffect(() => {
    currentFilter.current = filter;
  }, [filter]);

  const { connection } = useLiveStream({
    url: `/api/v1/teams/${encodeURIComponent(teamId)}/events`,
    fallbackMs: LIVE_FALLBACK_MS.openThread,
    listen: () => {
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
        retryMs: LIVE_FALLBACK_MS.openThread,
      });
      sync.current = feedSync.request;
      return {
        onMessage: (message) => {
          if (message.event === 'output') {
            const output = parseOutputPush(message.data, { field: 'teamId', id: teamId });
            if (!output?.jobId) return;
            const { jobId, ...live } = output;
            liveJobs.add(jobOutputKey(jobId));
            setLiveOutput(jobOutputKey(jobId), live);
            return;
          }
          if (message.event === 'file') {
            // A file of the workspace changed (a member's write, an upload elsewhere, a delete): the Files panel re-reads.
            applyFilePush(queryClient, { kind: 'team', id: teamId }, message.data);
            return;
          }
          if (message.event !== 'team') return;
          const push = JSON.parse(message.data) as TeamPush;
          pushed = Math.max(pushed, push.revision);
          feedSync.request(false);
        },
        close: () => {
          feedSync.dispose();
          sync.current = null;
          for (const key of liveJobs) clearLiveOutput(key);
        },
      };
    },
    // The feed is an infinite query patched by `since` reads, not re-read whole: the poll is that read, forced.
    onPoll: () => sync.current?.(true),
  });

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

  const refresh = useCallback(() => sync.current?.(true), []);
  return { connection, refresh };
}
