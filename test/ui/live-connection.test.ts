import { QueryClient, QueryObserver, environmentManager, focusManager } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { liveConnection, livePoll, startFallbackPoll, type LiveConnection, type PageFocus } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { PushStreamStatus } from '@/lib/push-stream';

const DOWN: PushStreamStatus = { state: 'down', failures: 2, retryInMs: 4_000 };
const STATUSES: PushStreamStatus[] = [{ state: 'connecting' }, { state: 'open' }, DOWN, { state: 'closed', status: 404 }, { state: 'closed', status: 401 }];

describe('the table of fallback intervals', () => {
  it('keeps every cadence the views polled at before push, one entry per distinct cadence', () => {
    // Losing the stream must not make any view slower than it was: a followed run 1 s, the Runs timeline 3 s, a
    // conversation or team workspace 5 s, the teams list 10 s.
    expect(LIVE_FALLBACK_MS).toEqual({ followedRun: 1_000, runsTimeline: 3_000, openThread: 5_000, teamList: 10_000 });
    const values = Object.values(LIVE_FALLBACK_MS);
    expect(new Set(values).size).toBe(values.length);
  });
});

describe('connection → poll', () => {
  it('polls only while the stream is down, at the view’s cadence, never while open or still opening', () => {
    for (const ms of Object.values(LIVE_FALLBACK_MS)) {
      for (const whenClosed of ['stop', 'poll'] as const) {
        const poll = (s: PushStreamStatus) => livePoll(liveConnection(s, ms, whenClosed), ms);
        expect(poll({ state: 'open' })).toEqual({ refetchInterval: false, refetchIntervalInBackground: false, refetchOnWindowFocus: false });
        expect(poll({ state: 'connecting' })).toEqual({ refetchInterval: false, refetchIntervalInBackground: false, refetchOnWindowFocus: false });
        expect(poll(DOWN)).toEqual({ refetchInterval: ms, refetchIntervalInBackground: false, refetchOnWindowFocus: 'always' });
        expect(liveConnection(DOWN, ms, whenClosed)).toEqual({ state: 'polling', everySeconds: ms / 1_000 });
      }
    }
  });

  it('a stream stopped for good stops the view that says so, and keeps polling the view whose read shows the error', () => {
    for (const status of [401, 403, 404]) {
      const closed: PushStreamStatus = { state: 'closed', status };
      expect(liveConnection(closed, 3_000, 'stop')).toEqual({ state: 'stopped', status });
      expect(livePoll(liveConnection(closed, 3_000, 'stop'), 3_000).refetchInterval).toBe(false);
      expect(liveConnection(closed, 5_000, 'poll')).toEqual({ state: 'polling', everySeconds: 5 });
      expect(livePoll(liveConnection(closed, 5_000, 'poll'), 5_000).refetchInterval).toBe(5_000);
    }
    // 'stop' is the default: a view has to ask to keep polling a stream that is gone.
    expect(liveConnection({ state: 'closed', status: 404 }, 5_000).state).toBe('stopped');
  });

  it('every stream state maps to exactly one connection state, for both policies', () => {
    const seen = new Set<LiveConnection['state']>();
    for (const s of STATUSES) for (const w of ['stop', 'poll'] as const) seen.add(liveConnection(s, 1_000, w).state);
    expect([...seen].sort()).toEqual(['connecting', 'live', 'polling', 'stopped']);
  });
});

/** A page whose visibility the test sets, as TanStack's focusManager reports it. */
function fakePage(): PageFocus & { show(): void; hide(): void; listeners: number } {
  let focused = true;
  const listeners = new Set<(focused: boolean) => void>();
  return {
    isFocused: () => focused,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    show() {
      focused = true;
      for (const l of listeners) l(true);
    },
    hide() {
      focused = false;
      for (const l of listeners) l(false);
    },
    get listeners() {
      return listeners.size;
    },
  };
}

describe('startFallbackPoll (the team feed’s own read)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ticks every interval while shown, skips every tick in a hidden tab, and reads at once when shown again', () => {
    const page = fakePage();
    const tick = vi.fn();
    const stop = startFallbackPoll({ everyMs: 5_000, tick, page });
    vi.advanceTimersByTime(4_999);
    expect(tick).toHaveBeenCalledTimes(0);
    vi.advanceTimersByTime(1);
    expect(tick).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(tick).toHaveBeenCalledTimes(3);

    // Hidden: a minute of intervals must not read once.
    page.hide();
    vi.advanceTimersByTime(60_000);
    expect(tick).toHaveBeenCalledTimes(3);

    // Shown again: one read at once, not at the next tick.
    page.show();
    expect(tick).toHaveBeenCalledTimes(4);
    vi.advanceTimersByTime(5_000);
    expect(tick).toHaveBeenCalledTimes(5);

    // Stopped (the stream is back): no tick and no listener left behind.
    stop();
    expect(page.listeners).toBe(0);
    page.hide();
    page.show();
    vi.advanceTimersByTime(60_000);
    expect(tick).toHaveBeenCalledTimes(5);
  });

  it('follows TanStack’s focusManager by default, the same notion of hidden as the views’ queries', () => {
    const tick = vi.fn();
    const stop = startFallbackPoll({ everyMs: 1_000, tick });
    try {
      focusManager.setFocused(false);
      vi.advanceTimersByTime(10_000);
      expect(tick).toHaveBeenCalledTimes(0);
      focusManager.setFocused(true);
      expect(tick).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(1_000);
      expect(tick).toHaveBeenCalledTimes(2);
    } finally {
      stop();
      focusManager.setFocused(undefined);
    }
  });
});

describe('livePoll on a real TanStack query (what chat, the teams list, the Runs page and a Steps panel spread in)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // The views run in a browser: without a `window` TanStack schedules no refetch timer at all.
    environmentManager.setIsServer(() => false);
  });
  afterEach(() => {
    focusManager.setFocused(undefined);
    environmentManager.setIsServer(() => typeof window === 'undefined');
    vi.useRealTimers();
  });

  /** An on-screen query with the given connection's poll options; counts its reads. */
  async function view(connection: LiveConnection, ms: number) {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000, refetchOnWindowFocus: false } } });
    // Mounted as the app's provider mounts it: that is what hears the page being shown again.
    client.mount();
    let reads = 0;
    const observer = new QueryObserver(client, {
      queryKey: ['live', 'view'],
      queryFn: async () => ++reads,
      ...livePoll(connection, ms),
    });
    const unsubscribe = observer.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(0); // the first read (mount)
    expect(reads).toBe(1);
    return { reads: () => reads, done: () => (unsubscribe(), client.unmount(), client.clear()) };
  }

  it('while down: reads every interval, not at all in a hidden tab, and at once when the tab is shown again', async () => {
    const v = await view({ state: 'polling', everySeconds: 5 }, 5_000);
    try {
      await vi.advanceTimersByTimeAsync(10_000);
      expect(v.reads()).toBe(3);
      focusManager.setFocused(false);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(v.reads()).toBe(3);
      // Shown before the data is stale (staleTime 5 s is less than the minute hidden, so test right after a read too).
      focusManager.setFocused(true);
      await vi.advanceTimersByTimeAsync(0);
      expect(v.reads()).toBe(4);
      // 'always': a read just landed (fresh data) and the tab is hidden and shown again: it still reads, nothing was pushed.
      focusManager.setFocused(false);
      focusManager.setFocused(true);
      await vi.advanceTimersByTimeAsync(0);
      expect(v.reads()).toBe(5);
    } finally {
      v.done();
    }
  });

  it('while live or opening: no timer and no read on focus (the stream says what changed)', async () => {
    for (const connection of [{ state: 'live' }, { state: 'connecting' }, { state: 'stopped', status: 404 }] as LiveConnection[]) {
      const v = await view(connection, 1_000);
      try {
        await vi.advanceTimersByTimeAsync(30_000);
        focusManager.setFocused(false);
        focusManager.setFocused(true);
        await vi.advanceTimersByTimeAsync(0);
        expect(v.reads(), connection.state).toBe(1);
      } finally {
        v.done();
      }
    }
  });
});
