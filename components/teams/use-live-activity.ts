'use client';

import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '@/lib/api-client';
import { applyActivity, type ActivitySnapshot } from './feed';
import { LivePoller, type PollerSnapshot } from './poller';
import { teamApi } from './team-api';

const initial: PollerSnapshot<ActivitySnapshot> = { data: undefined, failures: 0, error: null, fatal: false };

/**
 * The team's activity, polled with its last revision: ~2 s while the page is visible, ~15 s while hidden,
 * backing off after failures, one request at a time. An unchanged answer keeps the same data object, so
 * nothing re-renders and nothing the reader opened or typed is touched.
 */
export function useLiveActivity(teamId: string) {
  const [snapshot, setSnapshot] = useState(initial);
  const pollerRef = useRef<LivePoller<ActivitySnapshot> | null>(null);

  useEffect(() => {
    const poller = new LivePoller<ActivitySnapshot>({
      fetchOnce: async (prev, signal) => applyActivity(prev, await teamApi.activity(teamId, prev?.revision, signal)),
      isVisible: () => document.visibilityState !== 'hidden',
      onChange: setSnapshot,
      // A missing team or a lost session won't fix itself by polling again.
      isFatal: (e) => e instanceof ApiError && (e.status === 404 || e.status === 401),
    });
    pollerRef.current = poller;
    poller.start();
    const onVisibility = () => poller.visibilityChanged();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      poller.stop();
      pollerRef.current = null;
    };
  }, [teamId]);

  const refresh = useCallback(() => pollerRef.current?.refreshNow(), []);
  return { ...snapshot, refresh };
}
