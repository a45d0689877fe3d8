import { cn } from '@/components/ui/cn';
import { LIVE_LABELS, type LiveState } from './live-polling';

const dot: Record<LiveState, string> = {
  connecting: 'bg-zinc-400',
  live: 'bg-emerald-500',
  retrying: 'bg-amber-500 animate-pulse',
  disconnected: 'bg-red-500',
};

/** The live-update status line, announced politely when it changes. */
export function LiveStatus({ state, detail }: { state: LiveState; detail?: string | null }) {
  return (
    <p role="status" className="inline-flex min-w-0 items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      <span aria-hidden className={cn('size-2 shrink-0 rounded-full', dot[state])} />
      <span className="min-w-0 break-words">
        {LIVE_LABELS[state]}
        {detail ? <span className="text-zinc-500 dark:text-zinc-500"> · {detail}</span> : null}
      </span>
    </p>
  );
}
