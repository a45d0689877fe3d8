/**
 * A batch's progress in words and numbers: the bar's parts, the rate (items per minute) and the time left. The rate
 * comes from what this tab saw finish over the last few minutes (samples of the pushed counts), so it follows the
 * batch's pace now — a retry hours later, or a provider that slowed down — and falls back to the average since the
 * batch started when the tab has not watched long enough. Pure, so the math is tested without a clock.
 */
import type { BatchCounts, BatchStatus } from '@/lib/types/batch';

/** What the tab saw: at `at` (ms), `finished` items had ended (done or failed). */
export type ProgressSample = { at: number; finished: number };

/** How far back the rate looks. */
export const RATE_WINDOW_MS = 3 * 60_000;
/** A window shorter than this says little (one item just finishing), so the average since the start is used. */
export const MIN_RATE_SPAN_MS = 15_000;

/** Items that ran to an end: the rate counts these (cancelled items never ran to one). */
export const finishedCount = (counts: BatchCounts) => counts.done + counts.failed;
/** Items still to finish: the time left is for these. */
export const remainingCount = (counts: BatchCounts) => counts.queued + counts.running + counts.waiting;

/**
 * Add what the tab sees now. Samples older than the window go, except the newest of them (the window's starting
 * point). Fewer finished items than before (failed items sent back by "Retry failed") starts the samples over.
 */
export function addSample(samples: readonly ProgressSample[], sample: ProgressSample): ProgressSample[] {
  const last = samples.at(-1);
  if (last && sample.finished < last.finished) return [sample];
  if (last && last.finished === sample.finished) return [...samples];
  const all = [...samples, sample];
  const firstInside = all.findIndex((s) => s.at >= sample.at - RATE_WINDOW_MS);
  return all.slice(Math.max(0, firstInside - 1));
}

/**
 * Items per minute, or null when nothing can be said yet (no time has passed since the start). The count at the
 * window's start is the newest sample at or before it: once the tab has watched a whole window, the rate is what
 * finished within it (0 for a batch that stopped moving). Before that, what finished since the tab's first sample,
 * once something did and MIN_RATE_SPAN_MS passed; otherwise the average since `startedAt`.
 */
export function itemsPerMinute(input: { samples: readonly ProgressSample[]; now: number; startedAt: number; finished: number }): number | null {
  const { samples, now, startedAt, finished } = input;
  const perMinute = (count: number, ms: number) => Math.max(0, count) / (ms / 60_000);
  const atWindowStart = [...samples].reverse().find((s) => s.at <= now - RATE_WINDOW_MS);
  if (atWindowStart) return perMinute(finished - atWindowStart.finished, RATE_WINDOW_MS);
  const first = samples[0];
  if (first && finished > first.finished && now - first.at >= MIN_RATE_SPAN_MS) return perMinute(finished - first.finished, now - first.at);
  const elapsed = now - startedAt;
  return elapsed > 0 ? perMinute(finished, elapsed) : null;
}

/**
 * Milliseconds until the remaining items finish at `rate`, or null: not running, no pace to go by, or items waiting
 * for the person (how long they wait is theirs to say, not the batch's pace).
 */
export function timeLeftMs(status: BatchStatus, counts: BatchCounts, rate: number | null): number | null {
  const remaining = remainingCount(counts);
  if (status !== 'running' || remaining === 0 || counts.waiting > 0 || rate === null || rate <= 0) return null;
  return (remaining / rate) * 60_000;
}

export function formatRate(rate: number | null): string {
  if (rate === null) return 'Rate not known yet';
  if (rate === 0) return 'No item finished lately';
  if (rate < 0.1) return 'Under 0.1 items/min';
  const shown = rate >= 10 ? Math.round(rate).toLocaleString('en-US') : rate.toFixed(1);
  return `${shown} ${shown === '1.0' ? 'item' : 'items'}/min`;
}

export function formatTimeLeft(ms: number | null): string | null {
  if (ms === null) return null;
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return 'Less than a minute left';
  if (minutes < 60) return `About ${minutes} min left`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `About ${hours} h${rest ? ` ${rest} min` : ''} left`;
}

/** The bar's parts, in the order drawn, with their words: the bar is never read by colour alone. */
export const PROGRESS_PARTS = [
  { key: 'done', label: 'done' },
  { key: 'failed', label: 'failed' },
  { key: 'cancelled', label: 'cancelled' },
  { key: 'running', label: 'running' },
  { key: 'waiting', label: 'waiting for you' },
  { key: 'queued', label: 'queued' },
] as const satisfies readonly { key: keyof BatchCounts; label: string }[];

/** "12 done, 1 failed, 3 running, 2 waiting for you, 84 queued" (parts at zero left out, except done). */
export function countsSentence(counts: BatchCounts): string {
  return PROGRESS_PARTS.filter((p) => p.key === 'done' || counts[p.key] > 0)
    .map((p) => `${counts[p.key].toLocaleString('en-US')} ${p.label}`)
    .join(', ');
}
