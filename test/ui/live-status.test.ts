import { describe, expect, it } from 'vitest';
import { liveLabel } from '@/components/ui/live-status';
import { liveConnection, type WhenClosed } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS, type LiveCadence } from '@/lib/query/live-intervals';
import type { PushStreamStatus } from '@/lib/push-stream';

/** Each view with a status line, as its hook follows its stream (cadence and what a stream stopped for good means). */
const VIEWS: Record<string, { cadence: LiveCadence; whenClosed: WhenClosed }> = {
  'team workspace footer': { cadence: 'openThread', whenClosed: 'stop' },
  'Runs page': { cadence: 'runsTimeline', whenClosed: 'stop' },
  'conversation header': { cadence: 'openThread', whenClosed: 'poll' },
  'Steps panel': { cadence: 'followedRun', whenClosed: 'poll' },
};
const label = (view: string, status: PushStreamStatus) => liveLabel(liveConnection(status, LIVE_FALLBACK_MS[VIEWS[view]!.cadence], VIEWS[view]!.whenClosed));

describe('the live status line', () => {
  it('keeps each view’s wording: Live while open, and how often it checks while down, whatever the backoff is at', () => {
    const checking = { 'team workspace footer': 5, 'Runs page': 3, 'conversation header': 5, 'Steps panel': 1 };
    for (const [view, seconds] of Object.entries(checking)) {
      expect(label(view, { state: 'connecting' }), view).toBe('Connecting…');
      expect(label(view, { state: 'open' }), view).toBe('Live');
      // The figure is the fallback poll's, never the reconnect delay's.
      for (const retryInMs of [750, 8_000, 30_000]) {
        expect(label(view, { state: 'down', failures: 3, retryInMs }), view).toBe(`Reconnecting — checking every ${seconds} s`);
      }
    }
  });

  it('the team pages say why they stopped for good: a gone team, or a lost session', () => {
    for (const view of ['team workspace footer', 'Runs page']) {
      expect(label(view, { state: 'closed', status: 404 })).toBe('Disconnected · this team is gone');
      expect(label(view, { state: 'closed', status: 401 })).toBe('Disconnected · sign in again to resume');
      expect(label(view, { state: 'closed', status: 403 })).toBe('Disconnected · sign in again to resume');
    }
  });

  it('the conversation and a Steps panel never say "team" when stopped: they keep checking, so their own read shows why', () => {
    for (const status of [401, 403, 404]) {
      expect(label('conversation header', { state: 'closed', status })).toBe('Reconnecting — checking every 5 s');
      expect(label('Steps panel', { state: 'closed', status })).toBe('Reconnecting — checking every 1 s');
    }
  });
});
