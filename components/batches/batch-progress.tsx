'use client';

import Link from 'next/link';
import { useEffect, useState } from 'react';
import { cn } from '@/components/ui/cn';
import type { BatchCounts, BatchView } from '@/lib/types/batch';
import {
  PROGRESS_PARTS,
  addSample,
  countsSentence,
  finishedCount,
  formatRate,
  formatTimeLeft,
  itemsPerMinute,
  timeLeftMs,
  type ProgressSample,
} from './progress';

const COLOUR: Record<keyof BatchCounts, string> = {
  done: 'bg-emerald-500 dark:bg-emerald-400',
  failed: 'bg-red-500 dark:bg-red-400',
  cancelled: 'bg-zinc-400 dark:bg-zinc-500',
  running: 'bg-indigo-500 dark:bg-indigo-400',
  waiting: 'bg-amber-400 dark:bg-amber-300',
  queued: 'bg-zinc-200 dark:bg-zinc-700',
};

/** The time left is re-estimated this often while the batch runs, pushed counts or not (a stalled batch slows down). */
const TICK_MS = 5_000;

/**
 * The batch's progress: one bar in parts (done, failed, cancelled, running, waiting for the person, queued) with each part's count in words
 * beside it, the rate and the estimated time left. Counts arrive by push (use-batch-events.ts); the tab keeps its own
 * samples of them for the rate (progress.ts), so the estimate follows what it watched.
 */
export function BatchProgress({ batch }: { batch: BatchView }) {
  const finished = finishedCount(batch.counts);
  const running = batch.status === 'running';
  const [samples, setSamples] = useState<ProgressSample[]>([]);
  const [now, setNow] = useState<number | null>(null);

  // Each new count is a sample, stamped by this tab's clock (the server's may differ), taken just after it renders;
  // while the batch runs the clock ticks on, so a batch that stalls reads slower.
  useEffect(() => {
    const tick = () => {
      const at = Date.now();
      setSamples((s) => addSample(s, { at, finished }));
      setNow(at);
    };
    const first = setTimeout(tick, 0);
    const timer = running ? setInterval(tick, TICK_MS) : undefined;
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [finished, running]);

  const rate = now === null ? null : itemsPerMinute({ samples, now, startedAt: Date.parse(batch.startedAt), finished });
  const left = formatTimeLeft(timeLeftMs(batch.status, batch.counts, rate));
  const total = Math.max(batch.total, 1);
  const sentence = countsSentence(batch.counts);

  return (
    <section aria-label="Progress" className="space-y-2">
      <div
        role="progressbar"
        aria-label="Items finished"
        aria-valuemin={0}
        aria-valuemax={batch.total}
        aria-valuenow={finished + batch.counts.cancelled}
        aria-valuetext={`${finished + batch.counts.cancelled} of ${batch.total} ended: ${sentence}`}
        className="flex h-3 w-full overflow-hidden rounded-full bg-zinc-100 dark:bg-zinc-800"
      >
        {PROGRESS_PARTS.map((part) =>
          batch.counts[part.key] > 0 ? (
            <div key={part.key} className={cn('h-full', COLOUR[part.key])} style={{ width: `${(batch.counts[part.key] / total) * 100}%` }} />
          ) : null,
        )}
      </div>
      <ul aria-label="Items by status" className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-zinc-700 dark:text-zinc-300">
        {PROGRESS_PARTS.map((part) => (
          <li key={part.key} className="inline-flex items-center gap-1.5">
            <span aria-hidden className={cn('size-2.5 rounded-sm', COLOUR[part.key])} />
            <span className="tabular-nums">{batch.counts[part.key].toLocaleString('en-US')}</span> {part.label}
          </li>
        ))}
      </ul>
      {running && batch.counts.waiting > 0 ? (
        <p className="text-sm text-amber-800 dark:text-amber-200">
          {batch.counts.waiting === 1 ? '1 item waits' : `${batch.counts.waiting.toLocaleString('en-US')} items wait`} for your answer: open an item below, or
          answer them together in the{' '}
          <Link href="/inbox" className="underline underline-offset-2">
            Inbox
          </Link>
          .
        </p>
      ) : null}
      {running ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {formatRate(rate)}
          {left ? ` · ${left}` : ''}
        </p>
      ) : null}
    </section>
  );
}
