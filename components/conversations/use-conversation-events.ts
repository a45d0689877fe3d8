'use client';

import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { runKeys } from '@/components/runs/queries';
import { openPushStream } from '@/lib/push-stream';
import { parsePush, pushChangesState, streamStatusOf, type StreamStatus } from './live-updates';
import { conversationKeys } from './queries';

/**
 * Follow one conversation by push: its event stream (GET /conversations/:id/events, read by lib/push-stream, the
 * same reader as the team workspace: heartbeats noticed, Last-Event-ID on reconnect, Retry-After honoured). Each
 * message that says something changed re-reads the conversation's state and refreshes the named runs' entries
 * (an open Steps panel). Returns the stream's status, which decides the fallback polling (live-updates.ts).
 */
export function useConversationEvents(conversationId: string): StreamStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<StreamStatus>('connecting');

  useEffect(() => {
    const stream = openPushStream({
      url: `/api/v1/conversations/${encodeURIComponent(conversationId)}/events`,
      onStatus: (s) => setStatus(streamStatusOf(s)),
      onMessage: (message) => {
        if (message.event !== 'conversation') return;
        const push = parsePush(message.data);
        if (!push || push.conversationId !== conversationId || !pushChangesState(push)) return;
        void queryClient.invalidateQueries({ queryKey: conversationKeys.state(conversationId), exact: true });
        for (const runId of push.runIds ?? []) void queryClient.invalidateQueries({ queryKey: runKeys.detail(runId) });
      },
    });
    return () => stream.close();
  }, [conversationId, queryClient]);

  return status;
}
