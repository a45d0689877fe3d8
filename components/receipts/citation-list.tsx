import { useId } from 'react';
import type { CitationCheck } from '@/lib/types/receipts';
import { cn } from '@/components/ui/cn';

/** What a resolved citation proves, said wherever citations are shown. */
export const CITATION_EXPLANATION = 'Resolved = the call happened, not that the claim is true. Not resolved = this run made no such call.';

/**
 * The citations of a result (`[r2 calculator]`), each marked resolved (the run that wrote the result made that
 * call) or not resolved (no such call in that run), in words and a symbol — never colour alone — with the
 * explanation visible below the list and tied to it for screen readers.
 */
export function CitationList({ citations, className }: { citations: readonly CitationCheck[]; className?: string }) {
  const explanationId = useId();
  if (!citations.length) return null;
  return (
    <div className={cn('text-xs', className)}>
      <p className="font-medium text-zinc-500 dark:text-zinc-400">Citations</p>
      <ul aria-label="Citations" aria-describedby={explanationId} className="mt-1 flex flex-wrap gap-1.5">
        {citations.map((c) => (
          <li
            key={`${c.id} ${c.tool}`}
            className={cn(
              'inline-flex items-center gap-1 rounded border px-1.5 py-0.5',
              c.resolved
                ? 'border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-200'
                : 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200',
            )}
          >
            <span aria-hidden>{c.resolved ? '✓' : '?'}</span>
            <span className="font-mono">
              [{c.id} {c.tool}]
            </span>
            <span>{c.resolved ? 'resolved' : 'not resolved'}</span>
          </li>
        ))}
      </ul>
      <p id={explanationId} className="mt-1 text-zinc-600 dark:text-zinc-400">
        {CITATION_EXPLANATION}
      </p>
    </div>
  );
}
