import { boundAnnouncement, counterLabel, measureText, type TextBound } from '@/lib/text-bounds';
import { cn } from './cn';

export type CharCounterProps = {
  text: string;
  bound: TextBound;
  /** For aria-describedby on the field the counter belongs to. */
  id?: string;
  /** Show the numbers only from near the limit on (the composer); otherwise always (forms). */
  onlyNearLimit?: boolean;
  className?: string;
};

/**
 * "12 / 4,000 characters · 12 / 8,000 bytes", red past the bound, measured by lib/text-bounds (the rule the
 * schemas and the server use). The numbers are not a live region (that would speak on every key press); a
 * separate polite live region speaks once when the text comes near the limit and once when it goes past.
 */
export function CharCounter({ text, bound, id, onlyNearLimit = false, className }: CharCounterProps) {
  const measure = measureText(text, bound);
  const visible = !onlyNearLimit || measure.near;
  return (
    <span id={id} className={cn('text-xs tabular-nums', measure.over ? 'font-medium text-red-700 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-400', className)}>
      {visible ? counterLabel(measure, bound) : null}
      <span className="sr-only" aria-live="polite">
        {boundAnnouncement(measure, bound)}
      </span>
    </span>
  );
}
