/** Timing of the live activity poll: fast while visible, slow while hidden, backing off after failures. */

export const LIVE_POLL = {
  visibleMs: 2_000,
  hiddenMs: 15_000,
  maxBackoffMs: 30_000,
  /** Consecutive failed polls after which the page says "Disconnected". */
  disconnectedAfter: 4,
} as const;

export function nextPollDelay({ visible, failures }: { visible: boolean; failures: number }): number {
  const base = visible ? LIVE_POLL.visibleMs : LIVE_POLL.hiddenMs;
  if (failures <= 0) return base;
  const backoff = LIVE_POLL.visibleMs * 2 ** Math.min(failures, 10);
  return Math.min(LIVE_POLL.maxBackoffMs, Math.max(base, backoff));
}

export type LiveState = 'connecting' | 'live' | 'retrying' | 'disconnected';

/** The live view's connection to the server (not a team status): 'disconnected' after repeated failed polls. */
export function liveState({ failures, hasData }: { failures: number; hasData: boolean }): LiveState {
  if (failures >= LIVE_POLL.disconnectedAfter) return 'disconnected';
  if (failures > 0) return 'retrying';
  return hasData ? 'live' : 'connecting';
}

export const LIVE_LABELS: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  retrying: 'Updates interrupted · retrying',
  disconnected: 'Disconnected',
};
