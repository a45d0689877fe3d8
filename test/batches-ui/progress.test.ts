import { describe, expect, it } from 'vitest';
import {
  MIN_RATE_SPAN_MS,
  RATE_WINDOW_MS,
  addSample,
  countsSentence,
  formatRate,
  formatTimeLeft,
  itemsPerMinute,
  timeLeftMs,
  type ProgressSample,
} from '@/components/batches/progress';

const counts = (c: Partial<Record<'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'cancelled', number>>) => ({ queued: 0, running: 0, waiting: 0, done: 0, failed: 0, cancelled: 0, ...c });

describe('rate and time left', () => {
  const start = 1_000_000;

  it('averages since the start until the tab has watched long enough', () => {
    // 30 finished in 10 minutes: 3 items/min; the tab's one sample says nothing yet.
    const rate = itemsPerMinute({ samples: [{ at: start + 600_000, finished: 30 }], now: start + 600_000, startedAt: start, finished: 30 });
    expect(rate).toBe(3);
    expect(itemsPerMinute({ samples: [], now: start, startedAt: start, finished: 0 })).toBeNull();
  });

  it('uses what finished since the tab first looked once something did and the span is long enough', () => {
    const samples = [{ at: start, finished: 100 }];
    // 10 more in 20 s = 30/min, although the average since the start is far lower.
    expect(itemsPerMinute({ samples, now: start + 20_000, startedAt: start - 3_600_000, finished: 110 })).toBe(30);
    // Too short a span: the average since the start (110 in 60 min + 10 s).
    expect(itemsPerMinute({ samples, now: start + MIN_RATE_SPAN_MS - 1, startedAt: start - 3_600_000, finished: 110 })).toBeCloseTo(110 / 60.25, 1);
  });

  it('after a whole window, counts only what finished inside it, and reads 0 when nothing did', () => {
    let samples: ProgressSample[] = [];
    samples = addSample(samples, { at: start, finished: 0 });
    samples = addSample(samples, { at: start + 60_000, finished: 60 });
    samples = addSample(samples, { at: start + RATE_WINDOW_MS + 60_000, finished: 90 });
    // At start+window+60 s the count at the window's start (start+60 s) was 60: 30 in the window.
    const now = start + RATE_WINDOW_MS + 60_000;
    expect(itemsPerMinute({ samples, now, startedAt: start, finished: 90 })).toBeCloseTo(30 / (RATE_WINDOW_MS / 60_000));
    expect(itemsPerMinute({ samples, now: now + RATE_WINDOW_MS, startedAt: start, finished: 90 })).toBe(0);
  });

  it('keeps one sample before the window and starts over when fewer have finished (Retry failed)', () => {
    let samples: ProgressSample[] = [];
    for (let i = 0; i < 10; i++) samples = addSample(samples, { at: start + i * 60_000, finished: i });
    expect(samples[0]!.at).toBeLessThan(start + 9 * 60_000 - RATE_WINDOW_MS);
    expect(samples[1]!.at).toBeGreaterThanOrEqual(start + 9 * 60_000 - RATE_WINDOW_MS);
    // An unchanged count adds nothing.
    expect(addSample(samples, { at: start + 10 * 60_000, finished: 9 })).toEqual(samples);
    expect(addSample(samples, { at: start + 11 * 60_000, finished: 4 })).toEqual([{ at: start + 11 * 60_000, finished: 4 }]);
  });

  it('time left is the remaining (queued + running) at the rate, only while running', () => {
    const c = counts({ queued: 50, running: 10, done: 40 });
    expect(timeLeftMs('running', c, 30)).toBe(2 * 60_000);
    expect(timeLeftMs('running', c, 0)).toBeNull();
    expect(timeLeftMs('running', c, null)).toBeNull();
    expect(timeLeftMs('cancelling', c, 30)).toBeNull();
    expect(timeLeftMs('running', counts({ done: 3 }), 30)).toBeNull();
    // An item waiting for the person: how long is theirs to say, so no estimate (not one from the others' pace).
    expect(timeLeftMs('running', counts({ queued: 50, running: 10, waiting: 1, done: 40 }), 30)).toBeNull();
  });

  it('says rate and time left in words', () => {
    expect(formatRate(null)).toBe('Rate not known yet');
    expect(formatRate(0)).toBe('No item finished lately');
    expect(formatRate(0.05)).toBe('Under 0.1 items/min');
    expect(formatRate(1)).toBe('1.0 item/min');
    expect(formatRate(4.25)).toBe('4.3 items/min');
    expect(formatRate(1234.4)).toBe('1,234 items/min');
    expect(formatTimeLeft(null)).toBeNull();
    expect(formatTimeLeft(59_999)).toBe('Less than a minute left');
    expect(formatTimeLeft(60_000)).toBe('About 1 min left');
    expect(formatTimeLeft(59 * 60_000)).toBe('About 59 min left');
    expect(formatTimeLeft(60 * 60_000)).toBe('About 1 h left');
    expect(formatTimeLeft(95 * 60_000)).toBe('About 1 h 35 min left');
  });

  it('counts in words, zero parts left out except done', () => {
    expect(countsSentence(counts({ queued: 1200, running: 3 }))).toBe('0 done, 3 running, 1,200 queued');
    expect(countsSentence(counts({ done: 7, failed: 1, cancelled: 2 }))).toBe('7 done, 1 failed, 2 cancelled');
    expect(countsSentence(counts({ done: 2, running: 1, waiting: 3, queued: 4 }))).toBe('2 done, 1 running, 3 waiting for you, 4 queued');
  });
});
