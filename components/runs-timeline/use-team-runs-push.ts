'use client';

import { useQueryClient } from '@tanstack/react-query';
import { createFeedSync } from '@/lib/feed-sync';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { useLiveStream, type LiveStream } from '@/lib/query/use-live-stream';
import { teamRunsKeys } from './queries';
import { parseTeamRevision } from './runs-push';

/**
 * Keep an open Runs page current by push: one team event stream; a message announcing a revision the page has not
 * read from yet re-reads the timeline on screen, one read at a time (messages during a read fold into one more,
 * createFeedSync). The first message of every connection says where the team is, so a reconnect misses nothing.
 * The timeline's query spreads `poll`: it re-reads every LIVE_FALLBACK_MS.runsTimeline only while the stream is
 * down — also with nothing running, since a new request's run would otherwise not appear until the stream is back.
 */
export function useTeamRunsPush(teamId: string): LiveStream {
  const queryClient = useQueryClient();
  return useLiveStream({
    url: `/api/v1/teams/${encodeURIComponent(teamId)}/events`,
    fallbackMs: LIVE_FALLBACK_MS.runsTimeline,
    listen: () => {
      let announced = -1;
      let readFrom = -1;
      const sync = createFeedSync({
        read: async () => {
          readFrom = announced;
          // Resolves whether or not the read succeeded; a failed read shows on the page, the next message retries.
          await queryClient.refetchQueries({ queryKey: teamRunsKeys.all(teamId), type: 'active' });
        },
        behind: () => announced > readFrom,
        retryMs: LIVE_FALLBACK_MS.runsTimeline,
      });
      return {
        onMessage: (message) => {
          if (message.event !== 'team') return;
          const revision = parseTeamRevision(message.data, teamId);
          if (revision === null) return;
          announced = Math.max(announced, revision);
          sync.request(false);
        },
        close: () => sync.dispose(),
      };
    },
  });
}
