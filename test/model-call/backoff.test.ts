import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, retryDelayMs, setRetryBaseDelayForTests, sleep } from '@/server/agents/model-call/backoff';
import { classifyFailure, retryAfterMs } from '@/server/agents/model-call/failure';
import { withRetries } from '@/server/agents/model-call/retry';

/** The retry policy's pieces on their own: delays, what counts as transient, the loop's counting. */

describe('retryDelayMs', () => {
  it('grows exponentially with jitter between half and all of the step, capped at 30 s', () => {
    for (const [next, low, high] of [
      [2, 500, 1000],
      [3, 1000, 2000],
      [4, 2000, 4000],
      [9, 15_000, 30_000],
    ] as const) {
      expect(retryDelayMs(next, undefined, () => 0)).toBe(low);
      expect(retryDelayMs(next, undefined, () => 0.999999)).toBe(high);
    }
  });

  it('never waits less than Retry-After; at the one-minute limit it waits, one past it gives up', () => {
    expect(retryDelayMs(2, 5_000, () => 0)).toBe(5_000);
    expect(retryDelayMs(2, MAX_RETRY_AFTER_MS, () => 0)).toBe(MAX_RETRY_AFTER_MS);
    expect(retryDelayMs(2, MAX_RETRY_AFTER_MS + 1, () => 0)).toBeUndefined();
  });
});

describe('retryAfterMs', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  it('reads retry-after-ms, then seconds, then an HTTP date; nonsense is absent', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': 'Sun, 06 Dec 2026 05:00:10 GMT' }), Date.parse('Sun, 06 Dec 2026 05:00:00 GMT'))).toBe(10_000);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({}))).toBeUndefined();
  });
});

describe('classifyFailure', () => {
  const status = (s: number, extra: object = {}) => Object.assign(new Error(`${s} error`), { status: s, ...extra });
  it('429, 408, 409 and every 5xx (529 among them) are transient; other 4xx are not', () => {
    for (const s of [408, 409, 429, 500, 502, 503, 504, 529]) expect(classifyFailure(status(s)).transient).toBe(true);
    for (const s of [400, 401, 403, 404, 413, 422]) expect(classifyFailure(status(s)).transient).toBe(false);
  });

  it('carries the Retry-After of a Headers object', () => {
    expect(classifyFailure(status(429, { headers: new Headers({ 'retry-after': '3' }) }))).toEqual({ transient: true, retryAfterMs: 3000 });
  });

  it('a connection reset, refusal or a stream cut mid-answer is transient, found through causes', () => {
    expect(classifyFailure(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).transient).toBe(true);
    expect(classifyFailure(new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })).transient).toBe(true);
    expect(classifyFailure(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' })).transient).toBe(true);
    expect(classifyFailure({ error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }).transient).toBe(true);
  });

  it('a plain error (a bug, a scripted /fail, a configuration error) is not', () => {
    expect(classifyFailure(new Error('Model x is not configured')).transient).toBe(false);
    expect(classifyFailure('text').transient).toBe(false);
    expect(classifyFailure(null).transient).toBe(false);
  });
});

describe('withRetries', () => {
  beforeEach(() => setRetryBaseDelayForTests(2));
  afterEach(() => setRetryBaseDelayForTests(undefined));
  const transient = () => Object.assign(new Error('503 busy'), { status: 503 });

  it('tries up to maxAttempts, reporting each failure and whether another follows', async () => {
    const reports: Array<[number, boolean]> = [];
    const retries: Array<[number, number]> = [];
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw transient();
        },
        { maxAttempts: 3, onFailure: (n, _e, again) => reports.push([n, again]), onRetry: (n, max) => retries.push([n, max]) },
      ),
    ).rejects.toThrow('503 busy');
    expect(calls).toBe(3);
    expect(reports).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(retries).toEqual([
      [2, 3],
      [3, 3],
    ]);
  });

  it('stops waiting at once when the run is cancelled, with the cancel as the error', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = withRetries(
      async () => {
        throw Object.assign(new Error('429'), { status: 429, headers: new Headers({ 'retry-after': '50' }) });
      },
      { maxAttempts: 3, signal: controller.signal, onRetry: () => controller.abort(new Error('cancelled')) },
    );
    await expect(pending).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('sleep rejects with the reason of a signal already aborted', async () => {
    await expect(sleep(10, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});
