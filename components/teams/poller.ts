import { nextPollDelay } from './live-polling';

export type PollerSnapshot<T> = {
  data: T | undefined;
  /** Consecutive failed polls; 0 after any success. */
  failures: number;
  error: unknown;
  /** Polling stopped on an error that retrying cannot fix (e.g. the team is gone). */
  fatal: boolean;
};

type Timers = { set(fn: () => void, ms: number): unknown; clear(handle: unknown): void };

export type PollerOptions<T> = {
  /** One poll. Gets the previous data (to send its revision) and returns the new data. */
  fetchOnce(prev: T | undefined, signal: AbortSignal): Promise<T>;
  isVisible(): boolean;
  onChange(snapshot: PollerSnapshot<T>): void;
  isFatal?(error: unknown): boolean;
  timers?: Timers;
};

const defaultTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * A self-scheduling poll loop: the next poll is timed from the end of the previous one, so two requests are
 * never in flight; a refresh asked for during a poll runs right after it instead of alongside it.
 */
export class LivePoller<T> {
  private snapshot: PollerSnapshot<T> = { data: undefined, failures: 0, error: null, fatal: false };
  private timer: unknown = null;
  private inFlight = false;
  private again = false;
  private stopped = true;
  private controller: AbortController | null = null;
  private readonly timers: Timers;

  constructor(private readonly options: PollerOptions<T>) {
    this.timers = options.timers ?? defaultTimers;
  }

  get current(): PollerSnapshot<T> {
    return this.snapshot;
  }

  get busy(): boolean {
    return this.inFlight;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimer();
    this.controller?.abort();
    this.controller = null;
    this.inFlight = false;
    this.again = false;
  }

  /** Poll as soon as possible (now, or right after the poll in flight). Also restarts after a fatal error. */
  refreshNow(): void {
    if (this.stopped) return;
    if (this.snapshot.fatal) this.snapshot = { ...this.snapshot, fatal: false };
    if (this.inFlight) {
      this.again = true;
      return;
    }
    void this.poll();
  }

  /** Call on visibilitychange: becoming visible polls at once instead of waiting out the slow hidden delay. */
  visibilityChanged(): void {
    if (this.options.isVisible()) this.refreshNow();
  }

  private clearTimer() {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }

  private schedule() {
    this.clearTimer();
    const delay = nextPollDelay({ visible: this.options.isVisible(), failures: this.snapshot.failures });
    this.timer = this.timers.set(() => {
      this.timer = null;
      void this.poll();
    }, delay);
  }

  private async poll(): Promise<void> {
    if (this.stopped || this.inFlight) return;
    this.clearTimer();
    this.inFlight = true;
    const controller = new AbortController();
    this.controller = controller;
    try {
      const data = await this.options.fetchOnce(this.snapshot.data, controller.signal);
      if (controller.signal.aborted) return;
      this.snapshot = { data, failures: 0, error: null, fatal: false };
    } catch (error) {
      if (controller.signal.aborted) return;
      const fatal = this.options.isFatal?.(error) ?? false;
      this.snapshot = { ...this.snapshot, failures: this.snapshot.failures + 1, error, fatal };
    } finally {
      if (!controller.signal.aborted) {
        this.inFlight = false;
        this.controller = null;
      }
    }
    this.options.onChange(this.snapshot);
    if (this.stopped || this.snapshot.fatal) return;
    if (this.again) {
      this.again = false;
      void this.poll();
    } else {
      this.schedule();
    }
  }
}
