'use client';

import { useQueryClient } from '@tanstack/react-query';
import { applyFilePush } from '@/components/files/file-push';
import { clearLiveOutput, parseOutputPush, runOutputKey, setLiveOutput } from '@/components/live-output/store';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import { useLiveStream, type LiveStream } from '@/lib/query/use-live-stream';
import { applyConversationPush } from './apply-push';

/**
 * Follow one conversation by push: its event stream (GET /conversations/:id/events, through the same hook as the
 * team pages: heartbeats noticed, Last-Event-ID on reconnect, Retry-After honoured); each message goes to the cache
 * through apply-push.ts. The conversation's query spreads `poll`: it re-reads on a timer only while the stream is
 * down, and a stream stopped for good (the conversation or the session is gone) polls too, so that read shows the
 * error.
 */
export function useConversationEvents(conversationId: string): LiveStream {
  const queryClient = useQueryClient();
  return useLiveStream({
    url: `/api/v1/conversations/${encodeURIComponent(conversationId)}/events`,
    fallbackMs: LIVE_FALLBACK_MS.openThread,
    whenClosed: 'poll',
    listen: () => {
      // Live output of the conversation's running run (ADR 031), shown while the run is active; forgotten on close.
      const liveRuns = new Set<string>();
      return {
        onMessage: (message) => {
          if (message.event === 'conversation') applyConversationPush(queryClient, conversationId, message.data);
          // A file of the chat changed (an agent's write, an upload, a delete): its Files panel re-reads.
          if (message.event === 'file') applyFilePush(queryClient, { kind: 'conversation', id: conversationId }, message.data);
          if (message.event !== 'output') return;
          const output = parseOutputPush(message.data, { field: 'conversationId', id: conversationId });
          if (!output) return;
          const { jobId: _jobId, ...live } = output;
          liveRuns.add(runOutputKey(live.runId));
          setLiveOutput(runOutputKey(live.runId), live);
        },
        close: () => {
          for (const key of liveRuns) clearLiveOutput(key);
        },
      };
    },
  });
}
