'use client';

import { useEffect, useState } from 'react';
import { formatElapsed } from './model-wait';

/**
 * The pending step at the end of a live run's steps while it waits for the model: its elapsed time counts up each
 * second in a timer (role "timer": not announced as it changes, so a screen reader is not read the time every
 * second; the step is read when someone moves to it).
 */
export function ModelWaitStep({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <li className="relative min-w-0 pl-5">
      <span aria-hidden className="absolute top-1.5 left-1 size-2 rounded-full bg-blue-500 motion-safe:animate-pulse dark:bg-blue-400" />
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
