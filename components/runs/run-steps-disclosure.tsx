'use client';

import dynamic from 'next/dynamic';
import { useId, useState } from 'react';
import { cn } from '@/components/ui/cn';
import { DisclosureButton } from './disclosure-button';

// Loaded when a disclosure first opens: the steps view (events, totals, setup, delegated children) is not part of
// any page's first load, since every disclosure starts closed (docs/performance.md "First-load JavaScript").
const RunDetails = dynamic(() => import('./run-details').then((m) => m.RunDetails), { ssr: false });

/**
 * "Steps" under a conversation turn: closed by default, so a long history reads no events until asked. Opened
 * while the turn's run works, it follows the run live; opened later (or after a reload), it shows what was kept.
 */
export function RunStepsDisclosure({
  runId,
  label = 'Steps',
  heading = 'Steps of this turn',
  className,
}: {
  runId: string;
  /** The button's text. */
  label?: string;
  /** The open panel's heading. */
  heading?: string;
  className?: string;
}) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <div className={cn('min-w-0', className)}>
      <DisclosureButton open={open} controls={panelId} onToggle={() => setOpen((v) => !v)}>
        {label}
      </DisclosureButton>
      <div
        id={panelId}
        hidden={!open}
        className="mt-2 rounded-lg border border-zinc-200 bg-white p-3 text-left dark:border-zinc-800 dark:bg-zinc-900"
      >
        {open ? <RunDetails runId={runId} heading={heading} /> : null}
      </div>
    </div>
  );
}
