'use client';

import { useSyncExternalStore } from 'react';
import { formatClock, formatDate, formatDateTime, formatFull, formatRelative, formatWhen } from './format-time';
import { cn } from './cn';

const noSubscription = () => () => {};

export type TimeProps = {
  /** An ISO 8601 instant from the server. */
  iso: string;
  /** date: "Dec 1, 2026"; datetime: "Dec 1, 2026, 14:09"; when: "14:09" today, else "Dec 1, 14:09"; full: to the second
   * with the zone; clock: "14:09:47"; relative: "3 minutes ago". */
  format?: 'date' | 'datetime' | 'when' | 'full' | 'clock' | 'relative';
  /** Text before the time inside the element, e.g. "Updated". */
  prefix?: string;
  className?: string;
};

/**
 * The one way a time is shown: `<time dateTime>` for machines, the exact instant (with its zone) as a tooltip.
 * The server can't know the reader's zone or clock, so it renders UTC and the browser switches to local after
 * hydrating (useSyncExternalStore's server snapshot), which keeps the two renders from disagreeing.
 */
export function Time({ iso, format = 'datetime', prefix, className }: TimeProps) {
  const local = useSyncExternalStore(noSubscription, () => true, () => false);
  const zone = local ? {} : { timeZone: 'UTC' };
  const text = timeText(iso, format, local, zone);
  return (
    <time dateTime={iso} title={formatFull(iso, zone)} className={cn(className)}>
      {prefix ? `${prefix} ` : null}
      {text}
    </time>
  );
}

/** Relative needs the reader's clock, so the server (and hydration) show the date and time instead. */
function timeText(iso: string, format: NonNullable<TimeProps['format']>, local: boolean, zone: { timeZone?: string }): string {
  switch (format) {
    case 'date':
      return formatDate(iso, zone);
    case 'when':
      return formatWhen(iso, new Date(), zone);
    case 'full':
      return formatFull(iso, zone);
    case 'clock':
      return formatClock(iso, zone);
    case 'relative':
      return local ? formatRelative(iso) : formatDateTime(iso, zone);
    case 'datetime':
      return formatDateTime(iso, zone);
  }
}
