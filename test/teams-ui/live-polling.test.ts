import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LIVE_LABELS, liveState, nextPollDelay } from '@/components/teams/live-polling';
import { LivePoller, type PollerSnapshot } from '@/components/teams/poller';

describe('nextPollDelay', () => {
  it('polls every 2 s while visible and every 15 s while hidden', () => {
    expect(nextPollDelay({ visible: true, failures: 0 })).toBe(2_000);
    expect(nextPollDelay({ visible: false, failures: 0 })).toBe(15_000);
  });

  it('backs off after failures, up to 30 s', () => {
    const delays = [1, 2, 3, 4, 5, 20].map((failures) => nextPollDelay({ visible: true, failures }));
    expect(delays).toEqual([4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    expect(nextPollDelay({ visible: false, failures: 1 })).toBe(15_000);
  });
});

describe('liveState', () => {
  it('says Live, retrying, or Disconnected', () => {
    expect(LIVE_LABELS[liveState({ failures: 0, hasData: true })]).toBe('Live');
    expect(LIVE_LABELS[liveState({ failures: 1, hasData: true })]).toBe('Updates interrupted · retrying');
    expect(LIVE_LABELS[liveState({ failures: 4, hasData: true })]).toBe('Disconnected');
    expect(liveState({ failures: 0, hasData: false })).toBe('connecting');
  });
});

type Deferred<T> = { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void };
const deferred = <T>(): Deferred<T> => {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('LivePoller', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup(visible = { value: true }) {
    const calls: Array<{ prev: number | undefined; answer: Deferred<number> }> = [];
    const snapshots: PollerSnapshot<number>[] = [];
    const poller = new LivePoller<number>({
      fetchOnce: (prev) => {
        const answer = deferred<number>();
        calls.push({ prev, answer });
        return answer.promise;
      },
      isVisible: () => visible.value,
      onChange: (s) => snapshots.push(s),
      isFatal: (e) => e === 'gone',
    });
    return { poller, calls, snapshots, visible };
  }

  it('never has two polls in flight: a refresh during a poll runs right after it', async () => {
    const { poller, calls } = setup();
    poller.start();
    expect(calls).toHaveLength(1);
    poller.refreshNow();
    poller.refreshNow();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(1);
    calls[0]!.answer.resolve(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prev).toBe(1);
    calls[1]!.answer.resolve(2);
    await vi.advanceTimersByTimeAsync(1_999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    expect(calls[2]!.prev).toBe(2);
    poller.stop();
  });

  it('counts consecutive failures, keeps the last data, backs off, and resets on success', async () => {
    const { poller, calls, snapshots } = setup();
    poller.start();
    calls[0]!.answer.resolve(7);
    await vi.advanceTimersByTimeAsync(2_000);
    calls[1]!.answer.reject(new Error('offline'));
    await vi.advanceTimersByTimeAsync(0);
    expect(snapshots.at(-1)).toMatchObject({ data: 7, failures: 1, fatal: false });
    await vi.advanceTimersByTimeAsync(3_999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    calls[2]!.answer.reject(new Error('offline'));
    await vi.advanceTimersByTimeAsync(8_000);
    expect(snapshots.at(-1)).toMatchObject({ data: 7, failures: 2 });
    calls[3]!.answer.resolve(8);
    await vi.advanceTimersByTimeAsync(0);
    expect(snapshots.at(-1)).toMatchObject({ data: 8, failures: 0, error: null });
    poller.stop();
  });

  it('polls slowly while hidden and at once when the page becomes visible', async () => {
    const { poller, calls, visible } = setup({ value: false });
    poller.start();
    calls[0]!.answer.resolve(1);
    await vi.advanceTimersByTimeAsync(14_999);
    expect(calls).toHaveLength(1);
    visible.value = true;
    poller.visibilityChanged();
    expect(calls).toHaveLength(2);
    poller.stop();
  });

  it('stops on a fatal error until refreshed, and ignores answers after stop', async () => {
    const { poller, calls, snapshots } = setup();
    poller.start();
    calls[0]!.answer.reject('gone');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(1);
    expect(snapshots.at(-1)).toMatchObject({ fatal: true, failures: 1 });
    poller.refreshNow();
    expect(calls).toHaveLength(2);
    poller.stop();
    calls[1]!.answer.resolve(3);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(2);
    expect(snapshots).toHaveLength(1);
  });

  it('restarts cleanly after stop (React strict mode mounts twice)', async () => {
    const { poller, calls, snapshots } = setup();
    poller.start();
    poller.stop();
    poller.start();
    expect(calls).toHaveLength(2);
    calls[0]!.answer.resolve(1);
    calls[1]!.answer.resolve(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(snapshots.map((s) => s.data)).toEqual([2]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls).toHaveLength(3);
    poller.stop();
  });
});
