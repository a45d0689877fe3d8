import { describe, expect, it } from 'vitest';
import { createThrottle, type Clock } from '@/server/agents/live-output/throttle';

/** A clock the test moves by hand; timers fire when it passes their time. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; fn: () => void; id: number }> = [];
  let ids = 0;
  const clock: Clock = {
    now: () => now,
    setTimer: (fn, ms) => {
      const id = ++ids;
      timers.push({ at: now + ms, fn, id });
      return id;
    },
    clearTimer: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
  };
  const advanceTo = (t: number) => {
    now = t;
    for (const timer of timers.filter((x) => x.at <= t)) {
      timers = timers.filter((x) => x !== timer);
      timer.fn();
    }
  };
  return { clock, advanceTo, pending: () => timers.length };
}

describe('live output throttle (leading and trailing edge)', () => {
  const INTERVAL = 250;

  it('publishes the first change at once and a change exactly one interval later at once too', async () => {
    const { clock, advanceTo } = manualClock();
    const published: number[] = [];
    const throttle = createThrottle(INTERVAL, () => published.push(clock.now()), clock);
    throttle.request();
    expect(published).toEqual([0]);
    advanceTo(INTERVAL);
    throttle.request();
    expect(published).toEqual([0, INTERVAL]);
  });

  it('a change one millisecond inside the interval waits for its end; a burst costs one message', async () => {
    const { clock, advanceTo, pending } = manualClock();
    const published: number[] = [];
    const throttle = createThrottle(INTERVAL, () => published.push(clock.now()), clock);
    throttle.request();
    advanceTo(INTERVAL - 1);
    throttle.request();
    throttle.request();
    expect(published).toEqual([0]);
    expect(pending()).toBe(1);
    advanceTo(INTERVAL);
    expect(published).toEqual([0, INTERVAL]);
    // One more just after: the gap counts from the trailing publish.
    advanceTo(INTERVAL + 1);
    throttle.request();
    expect(published).toEqual([0, INTERVAL]);
    advanceTo(2 * INTERVAL);
    expect(published).toEqual([0, INTERVAL, 2 * INTERVAL]);
  });

  it('flush publishes what is pending now; cancel drops it; neither publishes when nothing is pending', async () => {
    const { clock, advanceTo, pending } = manualClock();
    let count = 0;
    const throttle = createThrottle(INTERVAL, () => count++, clock);
    throttle.flush();
    expect(count).toBe(0);
    throttle.request();
    advanceTo(10);
    throttle.request();
    throttle.flush();
    expect([count, pending()]).toEqual([2, 0]);
    advanceTo(20);
    throttle.request();
    throttle.cancel();
    advanceTo(10_000);
    expect([count, pending()]).toEqual([2, 0]);
  });
});
