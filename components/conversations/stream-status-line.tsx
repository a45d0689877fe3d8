import { cn } from '@/components/ui/cn';
import { streamStatusLabel, type StreamStatus } from './live-updates';

const dot: Record<StreamStatus, string> = {
  connecting: 'bg-zinc-400',
  live: 'bg-emerald-500',
  down: 'bg-amber-500 animate-pulse',
};

/** Whether this conversation updates live or is being re-read on a timer; announced politely when it changes. */
export function StreamStatusLine({ status }: { status: StreamStatus }) {
  return (
    <p role="status" className="inline-flex min-w-0 items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      <span aria-hidden className={cn('size-2 shrink-0 rounded-full', dot[status])} />
      <span className="min-w-0 break-words">{streamStatusLabel(status)}</span>
    </p>
  );
}
