'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type ComponentType } from 'react';
import { cn } from '@/components/ui/cn';
import { CITATION_NOTE, childSummary } from './child-summary';
import { runChildrenQuery } from './children-query';
import { DisclosureButton } from './disclosure-button';

const TONE = {
  neutral: 'text-zinc-600 dark:text-zinc-400',
  success: 'text-emerald-700 dark:text-emerald-300',
  danger: 'text-red-700 dark:text-red-300',
} as const;

/**
 * The child a `task` call started, nested under that call: what it was asked, by which agent, its status (with
 * its stop reason), its tokens, and — on request — its own steps, read through the child run's events like any run
 * (`poll`: the parent's run stream is down, so re-read the children on a timer). Those steps are `Steps`, which
 * RunSteps passes as itself: the two nest in each other, and a prop keeps their modules from importing each other.
 * All text is untrusted (written by models) and shown as plain text.
 */
export function DelegatedChild({
  parentRunId,
  toolCallId,
  poll,
  Steps,
}: {
  parentRunId: string;
  toolCallId: string;
  poll: boolean;
  Steps: ComponentType<{ runId: string; label: string }>;
}) {
  // Re-read when the parent's run stream says the run changed; `poll` while that stream is down (children-query.ts).
  const { data } = useQuery(runChildrenQuery(parentRunId, poll));
  const child = data?.find((c) => c.parentToolCallId === toolCallId);
  const [open, setOpen] = useState(false);
  const panelId = useId();
  if (!child) return null;
  const summary = childSummary(child);
  return (
    <section aria-label={`Child: ${child.description || 'task'}`} className="mt-1 ml-2 min-w-0 border-l-2 border-indigo-200 pl-3 dark:border-indigo-900">
      <p className="text-xs font-medium break-words text-zinc-800 dark:text-zinc-200">{summary.title}</p>
      <p className={cn('text-xs', TONE[summary.tone])}>{summary.status}</p>
      {summary.tokens ? <p className="text-xs text-zinc-600 dark:text-zinc-400">{summary.tokens}</p> : null}
      {summary.error ? <p className="text-xs break-words whitespace-pre-wrap text-red-700 dark:text-red-300">{summary.error}</p> : null}
      {summary.citations.length ? (
        <div className="mt-1 text-xs text-zinc-700 dark:text-zinc-300">
          <ul aria-label="Citations" className="flex flex-wrap gap-x-3">
            {summary.citations.map((c) => (
              <li key={c} className="font-mono break-all">
                {c}
              </li>
            ))}
          </ul>
          <p className="text-zinc-500 dark:text-zinc-400">{CITATION_NOTE}</p>
        </div>
      ) : null}
      {child.childRunId ? (
        <div className="mt-1">
          <DisclosureButton open={open} controls={panelId} onToggle={() => setOpen((v) => !v)}>
            Child steps
          </DisclosureButton>
          <div id={panelId} hidden={!open} className="mt-1">
            {open ? <Steps runId={child.childRunId} label={`Steps of child: ${child.description || 'task'}`} /> : null}
          </div>
        </div>
      ) : null}
    </section>
  );
}
