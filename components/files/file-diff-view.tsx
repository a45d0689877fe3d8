'use client';

import { cn } from '@/components/ui/cn';
import { diffSummary, parseUnifiedDiff, type DiffLineKind } from './diff-lines';

const ROW: Record<DiffLineKind, string> = {
  added: 'bg-emerald-50 text-emerald-950 dark:bg-emerald-950/50 dark:text-emerald-100',
  removed: 'bg-red-50 text-red-950 dark:bg-red-950/50 dark:text-red-100',
  context: 'text-zinc-800 dark:text-zinc-200',
  hunk: 'bg-zinc-200/70 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
  note: 'italic text-zinc-600 dark:text-zinc-400',
};

/**
 * A diff between two versions as lines: each added or removed line carries a visible + or − and, for a screen
 * reader, the words "Added:" or "Removed:" (colour is never the only sign), with its line numbers in both versions.
 */
export function FileDiffView({ diff, from, to }: { diff: string; from: number; to: number }) {
  const model = parseUnifiedDiff(diff);
  return (
    <div className="space-y-2">
      <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300">
        {`Version ${from} → version ${to}: ${diffSummary(model)}`}
      </p>
      {model.lines.length > 0 ? (
        <div
          role="list"
          aria-label={`Changes from version ${from} to version ${to}`}
          tabIndex={0}
          className="max-h-[60vh] overflow-auto rounded-md border border-zinc-200 font-mono text-xs leading-5 dark:border-zinc-800"
        >
          {model.lines.map((line, i) => (
            <div key={i} role="listitem" data-kind={line.kind} className={cn('flex min-w-max', ROW[line.kind])}>
              <span aria-hidden className="w-10 shrink-0 px-1 text-right text-zinc-500 select-none dark:text-zinc-400">
                {line.oldLine ?? ''}
              </span>
              <span aria-hidden className="w-10 shrink-0 px-1 text-right text-zinc-500 select-none dark:text-zinc-400">
                {line.newLine ?? ''}
              </span>
              <span aria-hidden className="w-5 shrink-0 text-center font-bold select-none">
                {line.sign}
              </span>
              <span className="pr-3 whitespace-pre">
                {line.label ? <span className="sr-only">{line.label}</span> : null}
                {line.text === '' && line.kind !== 'hunk' ? '\u00a0' : line.text}
              </span>
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
