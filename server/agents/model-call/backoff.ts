import 'server-only';

/** The first retry waits about this long; each next one twice as long, up to MAX_DELAY_MS. */
const BASE_DELAY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
/** A provider asking to wait longer than this is not waited for: the call fails with its message. */
export const MAX_RETRY_AFTER_MS = 60_000;

// Tests shrink the base delay so retries run in milliseconds; on globalThis so every copy of this module sees it.
const g = globalThis as unknown as { __ensembleModelRetryBaseMs?: number };

/** Tests only: the first retry's delay in ms (undefined restores the real one). */
export function setRetryBaseDelayForTests(ms: number | undefined): void {
  g.__ensembleModelRetryBaseMs = ms;
}

/**
 * How long to wait before attempt `next` (2, 3, …): exponential, with "equal jitter" (half fixed, half random) so
 * the runs a provider outage failed together don't all come back at the same moment; never less than the
 * provider's Retry-After. Undefined: the provider asked for a wait longer than MAX_RETRY_AFTER_MS.
 */
export function retryDelayMs(next: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) return undefined;
  const base = g.__ensembleModelRetryBaseMs ?? BASE_DELAY_MS;
  const exp = Math.min(MAX_DELAY_MS, base * 2 ** Math.max(0, next - 2));
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.max(Math.round(jittered), Math.ceil(retryAfterMs ?? 0));
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts (a cancel, the run's time limit). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
