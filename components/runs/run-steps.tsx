'use client';

import { useMemo } from 'react';
import { Button } from '@/components/ui/button';
import { cn } from '@/components/ui/cn';
import { Alert, Spinner } from '@/components/ui/misc';
import { Time } from '@/components/ui/time';
import { LIMITS } from '@/lib/limits';
import { BatchLink } from '@/components/batches/batch-link';
import { DelegatedChild } from './delegated-child';
import { liveLabel } from '@/components/ui/live-status';
import { isFollowDone } from './event-follow';
import { PendingStepItem, usePendingStep } from './model-wait-step';
import { isPermanentRunError } from './queries';
import type { ApiRunEvent } from '@/lib/types/run-events';
import { formatCount, stepItems, type StepItem, type StepTone } from './step-items';
import { useRunEvents } from './use-run-events';

/** The delegation tool (lib/tool-groups.ts `delegate`): its calls show their child. */
const TASK_TOOL = 'task';

const plain = 'whitespace-pre-wrap break-words [overflow-wrap:anywhere]';
const pre = cn(plain, 'mt-1 max-h-60 overflow-y-auto rounded-md bg-zinc-100 p-2 font-mono text-xs text-zinc-800 dark:bg-zinc-950 dark:text-zinc-200');

const DOT: Record<StepTone, string> = {
  neutral: 'bg-zinc-400 dark:bg-zinc-500',
  info: 'bg-blue-500 dark:bg-blue-400',
  success: 'bg-emerald-500 dark:bg-emerald-400',
  warning: 'bg-amber-500 dark:bg-amber-400',
  danger: 'bg-red-500 dark:bg-red-400',
};

const NO_EVENTS: readonly ApiRunEvent[] = [];

const SHORTENED = `Shortened to ${formatCount(LIMITS.runEvents.textChars)} characters when recorded.`;

function Shortened() {
  return <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">{SHORTENED}</p>;
}

function StepBody({ item, runId, pollChildren }: { item: StepItem; runId: string; pollChildren: boolean }) {
  switch (item.kind) {
    case 'assistant':
      return (
        <>
          {item.text.trim() ? <p className={cn(plain, 'mt-1 text-sm text-zinc-800 dark:text-zinc-200')}>{item.text}</p> : null}
          {item.truncated ? <Shortened /> : null}
          {item.toolCalls.map((call) => (
            <div key={call.id} className="mt-1">
              <p className="text-xs text-zinc-600 dark:text-zinc-400">
                Arguments for <span className="font-mono break-all">{call.name}</span>
              </p>
              <pre className={pre}>{call.args || '(none)'}</pre>
              {call.truncated ? <Shortened /> : null}
              {/* A delegated child nests under the call that started it, live while it works. */}
              {call.name === TASK_TOOL ? <DelegatedChild parentRunId={runId} toolCallId={call.id} poll={pollChildren} Steps={RunSteps} /> : null}
            </div>
          ))}
        </>
      );
    case 'tool':
      return (
        <>
          <pre className={pre}>{item.result || '(empty result)'}</pre>
          {item.truncated ? <Shortened /> : null}
          {item.batchId ? <BatchLink batchId={item.batchId} /> : null}
        </>
      );
    case 'model':
    case 'finished':
      return item.error ? <p className={cn(plain, 'mt-1 text-sm text-red-700 dark:text-red-300')}>{item.error}</p> : null;
    default:
      return null;
  }
}

function Step({ item, runId, pollChildren }: { item: StepItem; runId: string; pollChildren: boolean }) {
  const detail = 'detail' in item ? item.detail : '';
  return (
    <li className="relative min-w-0 pl-5">
      <span aria-hidden className={cn('absolute top-1.5 left-1 size-2 rounded-full', DOT[item.tone])} />
      <div className="flex flex-wrap items-baseline gap-x-2">
        <p className={cn(plain, 'min-w-0 text-sm font-medium text-zinc-900 dark:text-zinc-100')}>{item.title}</p>
        <Time iso={item.at} format="clock" className="ml-auto shrink-0 font-mono text-[11px] text-zinc-500 dark:text-zinc-400" />
      </div>
      {detail ? <p className={cn(plain, 'text-xs text-zinc-600 dark:text-zinc-400')}>{detail}</p> : null}
      <StepBody item={item} runId={runId} pollChildren={pollChildren} />
    </li>
  );
}

/**
 * A run's steps as they happen, oldest first: model calls, assistant text and tool calls, tool results,
 * interrupts, compaction and the end. Follows the run live while it works (by push; a line says when it falls back
 * to checking on a timer) and reads it once when it's done. While a live run waits for its model, a last pending
 * step says so with the time since (model-wait.ts), and "Writing…" once its live output streams the answer; it is
 * not counted in the announced number of steps.
 */
export function RunSteps({ runId, label = 'Run steps' }: { runId: string; label?: string }) {
  const { query, connection, polling } = useRunEvents(runId);
  const follow = query.data;
  const items = useMemo(() => stepItems(follow?.events ?? []), [follow?.events]);
  const live = follow !== undefined && !isFollowDone(follow);
  // While the run waits for its model nothing is recorded: a pending step says so, with the time since, until its
  // live output streams this answer (or a tool's progress).
  const pending = usePendingStep(runId, follow?.events ?? NO_EVENTS, live);

  if (query.isPending) return <Spinner label="Loading steps…" />;
  if (query.isError && !follow) {
    return (
      <Alert
        action={
          isPermanentRunError(query.error) ? undefined : (
            <Button variant="secondary" size="sm" onClick={() => void query.refetch()}>
              Retry
            </Button>
          )
        }
      >
        {isPermanentRunError(query.error) ? 'The steps of this run are not available.' : `Could not load the steps: ${query.error instanceof Error ? query.error.message : "the server did not answer"}.`}
      </Alert>
    );
  }

  return (
    <div className="min-w-0 space-y-2">
      {live ? (
        <p className="flex items-center gap-1.5 text-xs text-emerald-700 dark:text-emerald-300">
          <span aria-hidden className="size-1.5 rounded-full bg-current motion-safe:animate-pulse" />
          {polling ? liveLabel(connection) : 'Live — new steps appear as they happen'}
        </p>
      ) : null}
      {items.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {live ? 'Waiting for the first step…' : 'No steps were recorded for this run.'}
        </p>
      ) : (
        <ol aria-label={label} className="min-w-0 space-y-2 border-l border-zinc-200 dark:border-zinc-800">
          {items.map((item) => (
            <Step key={item.key} item={item} runId={runId} pollChildren={polling} />
          ))}
          {pending ? <PendingStepItem step={pending} /> : null}
        </ol>
      )}
      {/* Announces how many steps there are as they arrive; silent once nothing changes. */}
      <p role="status" aria-live="polite" className="sr-only">
        {items.length > 0 ? `${items.length} ${items.length === 1 ? 'step' : 'steps'}${live ? ' so far' : ''}` : ''}
      </p>
      {query.isError ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not refresh the steps; trying again.
        </p>
      ) : null}
    </div>
  );
}
