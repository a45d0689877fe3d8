import { ProvenanceLabel } from '@/components/runs/provenance-label';
import { RunStepsDisclosure } from '@/components/runs/run-steps-disclosure';
import { turnStepsHeading } from '@/components/runs/turn-steps-heading';
import { cn } from '@/components/ui/cn';
import type { TimelineItem } from './timeline';

/**
 * History entries that involve a team rather than this conversation's agent: the person's @mention message,
 * the framework's note, a result returned by a member, and (in a member's conversation) a request to it.
 * All text is untrusted and shown as plain text.
 */

const label = 'mb-1 text-xs font-semibold text-zinc-500 dark:text-zinc-400';
const plain = 'whitespace-pre-wrap break-words [overflow-wrap:anywhere]';

export function MentionMessage({ item }: { item: Extract<TimelineItem, { kind: 'mention' }> }) {
  return (
    <li className="flex min-w-0 justify-end">
      <div className="max-w-[85%] min-w-0">
        <p className={cn(label, 'text-right')}>You · to team members</p>
        <div className={cn('rounded-lg bg-indigo-600 px-3 py-2 text-sm text-white dark:bg-indigo-500', plain)}>{item.text}</div>
        <p className={cn('mt-1 text-right text-xs text-zinc-600 dark:text-zinc-400', plain)}>{item.sentTo}</p>
      </div>
    </li>
  );
}

/** Framework text, set apart from the agent's own words: small, muted, centred, no bubble. */
export function FrameworkNote({ item }: { item: Extract<TimelineItem, { kind: 'note' }> }) {
  return (
    <li className="flex min-w-0 justify-center">
      <p
        className={cn(
          'max-w-full rounded-md border border-dashed border-zinc-300 px-3 py-1.5 text-center text-xs text-zinc-600 sm:max-w-[85%] dark:border-zinc-700 dark:text-zinc-400',
          plain,
        )}
      >
        {item.provenance ? (
          <>
            <ProvenanceLabel provenance={item.provenance} />
            <span className="sr-only">: </span>
            <br />
          </>
        ) : (
          <span className="font-semibold">Ensemble: </span>
        )}
        {item.text}
      </p>
    </li>
  );
}

export function ReceiptCard({ item }: { item: Extract<TimelineItem, { kind: 'receipt' }> }) {
  const failed = item.status === 'failed';
  const title = `Result from ${item.memberName} (${item.status})`;
  return (
    <li className="min-w-0">
      <article
        aria-label={title}
        className={cn(
          'max-w-full min-w-0 rounded-lg border px-3 py-2 text-sm sm:max-w-[85%]',
          failed
            ? 'border-red-300 bg-red-50 text-red-950 dark:border-red-900 dark:bg-red-950/40 dark:text-red-50'
            : 'border-emerald-300 bg-emerald-50 text-emerald-950 dark:border-emerald-900 dark:bg-emerald-950/40 dark:text-emerald-50',
        )}
      >
        <p className={cn('mb-1 text-xs font-semibold', failed ? 'text-red-800 dark:text-red-200' : 'text-emerald-800 dark:text-emerald-200', plain)}>
          {title}
        </p>
        {item.provenance ? <ProvenanceLabel provenance={item.provenance} className="mb-1 block" /> : null}
        {item.text.trim() ? <p className={plain}>{item.text}</p> : <p className="italic opacity-80">No result text.</p>}
      </article>
      {item.runId ? <RunStepsDisclosure runId={item.runId} heading={turnStepsHeading(item.text)} className="mt-1" /> : null}
    </li>
  );
}

export function RequestCard({ item }: { item: Extract<TimelineItem, { kind: 'request' }> }) {
  const title = `Request from ${item.from}`;
  return (
    <li className="min-w-0">
      <article
        aria-label={title}
        className="max-w-full min-w-0 rounded-lg border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm text-indigo-950 sm:max-w-[85%] dark:border-indigo-900 dark:bg-indigo-950/40 dark:text-indigo-50"
      >
        <p className={cn('mb-1 text-xs font-semibold text-indigo-800 dark:text-indigo-200', plain)}>{title}</p>
        {item.provenance ? <ProvenanceLabel provenance={item.provenance} className="mb-1 block" /> : null}
        <p className={plain}>{item.text}</p>
      </article>
      {item.runId ? <RunStepsDisclosure runId={item.runId} heading={turnStepsHeading(item.text)} className="mt-1" /> : null}
    </li>
  );
}
