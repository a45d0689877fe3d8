/**
 * Dates as the app shows them, with the platform's Intl (no date library in the browser bundle): absolute
 * ("Dec 1, 2026", "Dec 1, 2026, 14:09"), relative ("3 minutes ago") and "a time today, a date otherwise".
 * Times of day are 24-hour, as the team feed, state and run steps always showed them.
 * Locale en-US like the rest of the UI's numbers; `timeZone` is left to the reader's browser unless given
 * (the server renders in UTC, see time.tsx).
 */

export type TimeOptions = { timeZone?: string };

const cache = new Map<string, Intl.DateTimeFormat>();
function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = JSON.stringify(options);
  let format = cache.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { hourCycle: 'h23', ...options });
    cache.set(key, format);
  }
  return format;
}

const parse = (iso: string | Date) => (iso instanceof Date ? iso : new Date(iso));
const valid = (d: Date) => !Number.isNaN(d.getTime());

/** "Dec 1, 2026" */
export function formatDate(iso: string | Date, { timeZone }: TimeOptions = {}): string {
  const d = parse(iso);
  return valid(d) ? dateFormat({ dateStyle: 'medium', timeZone }).format(d) : '';
}

/** "Dec 1, 2026, 14:09" */
export function formatDateTime(iso: string | Date, { timeZone }: TimeOptions = {}): string {
  const d = parse(iso);
  return valid(d) ? dateFormat({ dateStyle: 'medium', timeStyle: 'short', timeZone }).format(d) : '';
}

/** "Dec 1, 2026, 14:09:47 UTC": the tooltip, exact to the second and naming the zone. */
export function formatFull(iso: string | Date, { timeZone }: TimeOptions = {}): string {
  const d = parse(iso);
  if (!valid(d)) return '';
  return dateFormat({ year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short', timeZone }).format(d);
}

/** "14:09:47": a time of day to the second (run steps). */
export function formatClock(iso: string | Date, { timeZone }: TimeOptions = {}): string {
  const d = parse(iso);
  return valid(d) ? dateFormat({ hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone }).format(d) : '';
}

/** "14:09" when `iso` is on the same calendar day as `now` (in the zone), else "Dec 1, 14:09" (year when not this year). */
export function formatWhen(iso: string | Date, now: Date = new Date(), { timeZone }: TimeOptions = {}): string {
  const d = parse(iso);
  if (!valid(d)) return '';
  const day = dateFormat({ year: 'numeric', month: 'numeric', day: 'numeric', timeZone });
  if (day.format(d) === day.format(now)) return dateFormat({ hour: '2-digit', minute: '2-digit', timeZone }).format(d);
  const year = dateFormat({ year: 'numeric', timeZone });
  const sameYear = year.format(d) === year.format(now);
  return dateFormat({ month: 'short', day: 'numeric', year: sameYear ? undefined : 'numeric', hour: '2-digit', minute: '2-digit', timeZone }).format(d);
}

const relative = new Intl.RelativeTimeFormat('en-US', { numeric: 'always' });
const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['minute', 60],
  ['hour', 60 * 60],
  ['day', 24 * 60 * 60],
  ['month', 30 * 24 * 60 * 60],
  ['year', 365 * 24 * 60 * 60],
];

/**
 * "less than a minute ago", "3 minutes ago", "2 days ago": under a minute, and anything in the future (a browser clock a little
 * behind the server's must not print "in 2 seconds"), is "less than a minute ago". Whole units, rounded down.
 */
export function formatRelative(iso: string | Date, now: Date = new Date()): string {
  const d = parse(iso);
  if (!valid(d)) return '';
  const seconds = Math.floor((now.getTime() - d.getTime()) / 1000);
  if (seconds < 60) return 'less than a minute ago';
  let unit: Intl.RelativeTimeFormatUnit = 'minute';
  let size = 60;
  for (const [u, s] of STEPS) if (seconds >= s) [unit, size] = [u, s];
  return relative.format(-Math.floor(seconds / size), unit);
}
