import 'server-only';

export type Clock = {
  now: () => number;
  setTimer: (fn: () => void, ms: number) => unknown;
  clearTimer: (timer: unknown) => void;
};

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    // A pending publish must not keep the process (or a test worker) alive.
    timer.unref?.();
    return timer;
  },
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export type Throttle = {
  /** Something changed: publish now if the last publish is at least `intervalMs` old, else once the gap is over. */
  request(): void;
  /** Publish what is pending now (the end of a response: its last words should not wait). */
  flush(): void;
  /** Drop what is pending (the run is gone). */
  cancel(): void;
};

/**
 * Leading and trailing edge: the first change goes out at once, later ones at most once per `intervalMs`, and the
 * last change of a burst always goes out (`publish` reads the state then, so coalesced changes cost one message).
 */
export function createThrottle(intervalMs: number, publish: () => void, clock: Clock = systemClock): Throttle {
  let last = -Infinity;
  let timer: unknown = null;
  const fire = () => {
    timer = null;
    last = clock.now();
    publish();
  };
  return {
    request() {
      if (timer !== null) return;
      const wait = last + intervalMs - clock.now();
      if (wait <= 0) fire();
      else timer = clock.setTimer(fire, wait);
    },
    flush() {
      if (timer === null) return;
      clock.clearTimer(timer);
      fire();
    },
    cancel() {
      if (timer !== null) clock.clearTimer(timer);
      timer = null;
    },
  };
}
