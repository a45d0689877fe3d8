'use client';

import { useEffect, useState } from 'react';
import { useRunLiveOutput } from '@/components/live-output/store';
import type { ApiRunEvent } from '@/lib/types/run-events';
import { followWait, formatElapsed, modelWaitSince, pendingStep, streamedSignature, type PendingStep, type WaitBaseline } from './model-wait';

/**
 * The pending step of a live run (model-wait.ts): while it waits for its model, and what streams once its live output
 * (pushed to the page already, components/live-output/store.ts) starts writing for this wait. The output held when
 * a wait begins is kept as its baseline: text still there from the previous response is not this wait's answer.
 */
export function usePendingStep(runId: string, events: readonly ApiRunEvent[], live: boolean): PendingStep | null {
  const since = live ? modelWaitSince(events) : null;
  const output = useRunLiveOutput(runId);
  const signature = streamedSignature(output);
  const [wait, setWait] = useState<WaitBaseline>(() => followWait(null, since, events, signature));
  // A new wait (or none) takes the output as it is now for its baseline, kept while the wait lasts.
  const current = followWait(wait, since, events, signature);
  if (current !== wait) setWait(current);
  return pendingStep(since, output, current.baseline);
}

const DOT = 'absolute top-1.5 left-1 size-2 rounded-full bg-blue-500 motion-safe:animate-pulse dark:bg-blue-400';

/**
 * The pending step at the end of a live run's steps. Waiting: its elapsed time counts up each second in a timer
 * (role "timer": not announced as it changes, so a screen reader is not read the time every second; the step is read
 * when someone moves to it). Writing, or a tool's progress: what the live output shows, named here (plain text).
 */
export function PendingStepItem({ step }: { step: PendingStep }) {
  if (step.kind === 'waiting') return <ModelWaitStep key={step.since} since={step.since} />;
  return (
    <li className="relative min-w-0 pl-5">
      <span aria-hidden className={DOT} />
      <p className="text-sm font-medium break-words text-zinc-900 dark:text-zinc-100">
        {step.kind === 'tool' ? `Running ${step.tool} of MCP server ${step.server}…` : 'Writing…'}
      </p>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        {step.kind === 'tool' ? 'Its progress shows in the live output.' : 'The answer shows in the live output as it is written.'}
      </p>
    </li>
  );
}

export function ModelWaitStep({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <li className="relative min-w-0 pl-5">
      <span aria-hidden className={DOT} />
      <p className="text-sm font-medium text-zinc-900 dark:text-zinc-100">Waiting for the model…</p>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        No answer yet after{' '}
        <span role="timer" aria-live="off" className="font-mono">
          {formatElapsed(now - Date.parse(since))}
        </span>
      </p>
    </li>
  );
}
