'use client';

import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { openPushStream } from '@/lib/push-stream';
import { createFeedSync } from '@/components/teams/feed-sync';
import type { LiveConnection } from '@/components/teams/use-team-events';
import { teamRunsKeys } from './queries';
import { FALLBACK_REFETCH_MS, parseTeamRevision, timelineConnection } from './runs-push';

/**
 * Keep an open Runs page current by push: one team event stream; a message announcing a revision the page has not
 * read from yet re-reads the timeline on screen, one read at a time (messages during a read fold into one more,
 * createFeedSync). The first message of every connection says where the team is, so a reconnect misses nothing.
 * Returns the stream's state: the query polls only while it is down (fallbackInterval).
 */
export function useTeamRunsPush(teamId: string): LiveConnection {
  const queryClient = useQueryClient();
  const [connection, setConnection] = useState<LiveConnection>({ state: 'connecting' });

  useEffect(() => {
    let announced = -1;
    let readFrom = -1;
    const sync = createFeedSync({
      read: async () => {
        readFrom = announced;
        // Resolves whether or not the read succeeded; a failed read shows on the page, the next message retries.
        await queryClient.refetchQueries({ queryKey: teamRunsKeys.all(teamId), type: 'active' });
      },
      behind: () => announced > readFrom,
      retryMs: FALLBACK_REFETCH_MS,
    });
    const stream = openPushStream({
      url: `/api/v1/teams/${encodeURIComponent(teamId)}/events`,
      onStatus: (status) => setConnection(timelineConnection(status)),
      onMessage: (message) => {
        if (message.event !== 'team') return;
        const revision = parseTeamRevision(message.data, teamId);
        if (revision === null) return;
        announced = Math.max(announced, revision);
        sync.request(false);
      },
    });
    return () => {
      stream.close();
      sync.dispose();
    };
  }, [queryClient, teamId]);

  return connection;
}
