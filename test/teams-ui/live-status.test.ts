import { describe, expect, it } from 'vitest';
import { liveLabel } from '@/components/teams/live-status';
import { FALLBACK_POLL_MS, liveConnection } from '@/components/teams/use-team-events';

describe('the workspace footer', () => {
  it('says Live while the stream is open, and how often it checks while it is down', () => {
    expect(liveLabel(liveConnection({ state: 'connecting' }))).toBe('Connecting…');
    expect(liveLabel(liveConnection({ state: 'open' }))).toBe('Live');
    // The figure is the fallback poll's, whatever the reconnect backoff is at.
    for (const retryInMs of [750, 8_000, 30_000]) {
      expect(liveLabel(liveConnection({ state: 'down', failures: 3, retryInMs }))).toBe(
        `Reconnecting — checking every ${FALLBACK_POLL_MS / 1_000} s`,
      );
    }
  });

  it('says why it stopped for good: a gone team, or a lost session', () => {
    expect(liveLabel(liveConnection({ state: 'closed', status: 404 }))).toBe('Disconnected · this team is gone');
    expect(liveLabel(liveConnection({ state: 'closed', status: 401 }))).toBe('Disconnected · sign in again to resume');
  });
});
