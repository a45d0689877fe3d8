import { cn } from '@/components/ui/cn';
import type { LiveConnection } from '@/lib/query/live-connection';

const dot: Record<LiveConnection['state'], string> = {
  connecting: 'bg-zinc-400',
  live: 'bg-emerald-500',
  polling: 'bg-amber-500 motion-safe:animate-pulse',
  stopped: 'bg-red-500',
};

/**
 * The status line's words. Only the team pages' streams stop for good (lib/query/live-connection.ts, WhenClosed),
 * so the stopped wording names the team.
 */
export function liveLabel(connection: LiveConnection): string {
  switch (connection.state) {
    case 'connecting':
      return 'Connecting…';
    case 'live':
      return 'Live';
    case 'polling':
      return `Reconnecting — checking every ${connection.everySeconds} s`;
    case 'stopped':
      return connection.status === 404 ? 'Disconnected · this team is gone' : 'Disconnected · sign in again to resume';
  }
}

/** How a live view hears of changes: pushed ("Live") or, while the stream is down, polled. Announced politely. */
export function LiveStatus({ connection }: { connection: LiveConnection }) {
  return (
    <p role="status" aria-live="polite" className="inline-flex min-w-0 items-center gap-1.5 text-xs text-zinc-600 dark:text-zinc-400">
      <span aria-hidden className={cn('size-2 shrink-0 rounded-full', dot[connection.state])} />
      <span className="min-w-0 break-words">{liveLabel(connection)}</span>
    </p>
  );
}
