import type { Clock } from '@/server/agents/live-output/throttle';

/**
 * A clock for the live output's throttle (server/agents/live-output/throttle.ts) where time stands still until the
 * test moves it: `advance(ms)` moves it and runs the timers that came due, in the order they were set.
 */
export function frozenClock() {
  let now = 1_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let ids = 0;
  const clock: Clock = {
    now: () => now,
    setTimer: (fn, ms) => {
      timers.set(++ids, { at: now + ms, fn });
      return ids;
    },
    clearTimer: (id) => void timers.delete(id as number),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, t] of [...timers]) {
      if (t.at > now) continue;
      timers.delete(id);
      t.fn();
    }
  };
  return { clock, advance };
}
