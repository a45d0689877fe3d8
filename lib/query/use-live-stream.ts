'use client';

import { useEffect, useEffectEvent, useState } from 'react';
import type { EventSourceMessage } from 'eventsource-parser';
import { openPushStream, type PushStreamStatus } from '@/lib/push-stream';
import { liveConnection, livePoll, startFallbackPoll, type LiveConnection, type LivePoll, type WhenClosed } from './live-connection';

/** What a view does with one opening of its stream: each message, and what to release when it closes. */
export type LiveListener = { onMessage(message: EventSourceMessage): void; close?(): void };

export type LiveStream = {
  /** For the status line (components/ui/live-status.tsx). */
  connection: LiveConnection;
  /** The stream is down: the view reads on its timer. */
  polling: boolean;
  /** Spread into the view's query: the fallback interval while polling, none otherwise. */
  poll: LivePoll;
};

const IDLE: PushStreamStatus = { state: 'connecting' };

/**
 * One hook for every live view (ADR 030, ADR 052): opens the push stream at `url` (lib/push-stream: heartbeats,
 * Last-Event-ID, Retry-After), hands its messages to the listener `listen` makes for each opening, reports the
 * connection for the status line, and gives the fallback — `poll` for a TanStack query, or `onPoll` for a read of
 * the view's own — only while the stream is down: every `fallbackMs`, never in a hidden tab, and at once when the
 * tab is shown again. `url: null` keeps the stream closed (nothing to follow yet, or any more); the connection then
 * reads "connecting", which never polls.
 */
export function useLiveStream(options: {
  url: string | null;
  /** From LIVE_FALLBACK_MS (lib/query/live-intervals.ts). */
  fallbackMs: number;
  whenClosed?: WhenClosed;
  listen: () => LiveListener;
  onPoll?: () => void;
}): LiveStream {
  const { url, fallbackMs, whenClosed = 'stop' } = options;
  const [status, setStatus] = useState<PushStreamStatus>(IDLE);
  // The newest closures, without reopening the stream when the page re-renders: only a new URL reopens it.
  const listen = useEffectEvent(options.listen);
  const onPoll = useEffectEvent(() => options.onPoll?.());
  const hasOwnPoll = options.onPoll !== undefined;

  useEffect(() => {
    if (url === null) return;
    const listener = listen();
    const stream = openPushStream({ url, onStatus: setStatus, onMessage: (message) => listener.onMessage(message) });
    return () => {
      stream.close();
      listener.close?.();
      setStatus(IDLE);
    };
  }, [url]);

  const connection = liveConnection(url === null ? IDLE : status, fallbackMs, whenClosed);
  const polling = connection.state === 'polling';
  useEffect(() => {
    if (!polling || !hasOwnPoll) return;
    return startFallbackPoll({ everyMs: fallbackMs, tick: onPoll });
  }, [polling, hasOwnPoll, fallbackMs]);

  return { connection, polling, poll: livePoll(connection, fallbackMs) };
}
