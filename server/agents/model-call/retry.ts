import 'server-only';
import { retryDelayMs, sleep } from './backoff';
import { classifyFailure } from './failure';

export type RetryHooks = {
  /** Tries at most (MODEL_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** The run's signal: a cancel or its time limit ends the wait and is never retried. */
  signal?: AbortSignal;
  /** Attempt `attempt` failed; `willRetry` says whether another follows (decided before this is called). */
  onFailure?: (attempt: number, error: unknown, willRetry: boolean) => void;
  /** Attempt `next` of `maxAttempts` is about to wait and start. */
  onRetry?: (next: number, maxAttempts: number) => void;
};

/**
 * Call `attempt(1)`, and after a transient failure (failure.ts) try again, up to `maxAttempts`, waiting as
 * backoff.ts says between tries; the last error is thrown when none is left, at once for an error that is not
 * transient. The one retry policy for model calls: the provider clients' own retries are off (providers.ts).
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, hooks: RetryHooks): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      const failure = hooks.signal?.aborted ? { transient: false as const } : classifyFailure(error);
      const delay = failure.transient && n < hooks.maxAttempts ? retryDelayMs(n + 1, failure.retryAfterMs) : undefined;
      hooks.onFailure?.(n, error, delay !== undefined);
      if (delay === undefined) throw error;
      hooks.onRetry?.(n + 1, hooks.maxAttempts);
      await sleep(delay, hooks.signal);
    }
  }
}
