'use client';

import { useSyncExternalStore } from 'react';
import { formatDate, formatDateTime, formatFull, formatRelative, formatWhen } from './format-time';
import { cn } from './cn';

const noSubscription = () => () => {};

export type TimeProps = {
  /** An ISO 8601 instant from the server. */
  iso: string;
  /** date: "Dec 1, 2026"; datetime: "Dec 1, 2026, 14:09"; when: "14:09" today, else "Dec 1, 14:09"; full: to the second
   * with the zone; relative: "3 minutes ago". */
  format?: 'date' | 'datetime' | 'when' | 'full' | 'relative';
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
  const text =
    format === 'date'
      ? formatDate(iso, zone)
      : format === 'when'
        ? formatWhen(iso, new Date(), zone)
        : format === 'full'
          ? formatFull(iso, zone)
          : format === 'relative'
            ? local
              ? formatRelative(iso)
              : formatDateTime(iso, zone)
            : formatDateTime(iso, zone);
  return (
    <time dateTime={iso} title={formatFull(iso, zone)} className={cn(className)}>
      {prefix ? `${prefix} ` : null}
      {text}
    </time>
  );
}
