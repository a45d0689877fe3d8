'use client';

import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { clearLiveOutput, parseOutputPush, runOutputKey, setLiveOutput } from '@/components/live-output/store';
import { openPushStream } from '@/lib/push-stream';
import { applyConversationPush } from './apply-push';
import { streamStatusOf, type StreamStatus } from './live-updates';

/**
 * Follow one conversation by push: its event stream (GET /conversations/:id/events, read by lib/push-stream, the
 * same reader as the team workspace: heartbeats noticed, Last-Event-ID on reconnect, Retry-After honoured); each
 * message goes to the cache through apply-push.ts. Returns the stream's status, which decides the fallback
 * polling (live-updates.ts).
 */
export function useConversationEvents(conversationId: string): StreamStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<StreamStatus>('connecting');

  useEffect(() => {
    // Live output of the conversation's running run (ADR 031), shown while the run is active; forgotten on close.
    const liveRuns = new Set<string>();
    const stream = openPushStream({
      url: `/api/v1/conversations/${encodeURIComponent(conversationId)}/events`,
      onStatus: (s) => setStatus(streamStatusOf(s)),
      onMessage: (message) => {
        if (message.event === 'conversation') applyConversationPush(queryClient, conversationId, message.data);
        if (message.event !== 'output') return;
        const output = parseOutputPush(message.data, { field: 'conversationId', id: conversationId });
        if (!output) return;
        const { jobId: _jobId, ...live } = output;
        liveRuns.add(runOutputKey(live.runId));
        setLiveOutput(runOutputKey(live.runId), live);
      },
    });
    return () => {
      stream.close();
      for (const key of liveRuns) clearLiveOutput(key);
    };
  }, [conversationId, queryClient]);

  return status;
}
