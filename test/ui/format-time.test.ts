import { describe, expect, it } from 'vitest';
import { formatClock, formatDate, formatDateTime, formatFull, formatRelative, formatWhen } from '@/components/ui/format-time';

const utc = { timeZone: 'UTC' };
const at = '2026-12-01T10:09:47.000Z';

describe('absolute', () => {
  it('formats a date, a date and time, and the exact tooltip with its zone', () => {
    expect(formatDate(at, utc)).toBe('Dec 1, 2026');
    expect(formatDateTime(at, utc)).toBe('Dec 1, 2026, 10:09');
    expect(formatFull(at, utc)).toBe('Dec 1, 2026, 10:09:47 UTC');
    expect(formatClock(at, utc)).toBe('10:09:47');
    expect(formatClock('2026-12-01T00:00:05Z', utc)).toBe('00:00:05');
  });

  it('shows the day in the zone asked for, not the server zone', () => {
    // 23:30 UTC is already the next day in Tokyo.
    expect(formatDate('2026-12-01T23:30:00Z', { timeZone: 'Asia/Tokyo' })).toBe('Dec 2, 2026');
  });

  it('returns an empty string for an unreadable date instead of throwing during render', () => {
    expect(formatDate('not a date')).toBe('');
    expect(formatRelative('nope')).toBe('');
    expect(formatWhen('nope')).toBe('');
  });
});

describe('formatWhen', () => {
  const now = new Date('2026-12-01T15:00:00Z');
  it('is a time today, a date and time on another day, with the year only when it differs', () => {
    expect(formatWhen('2026-12-01T00:00:00Z', now, utc)).toBe('00:00');
    expect(formatWhen('2026-11-30T23:59:00Z', now, utc)).toBe('Nov 30, 23:59');
    expect(formatWhen('2025-12-01T10:00:00Z', now, utc)).toBe('Dec 1, 2025, 10:00');
  });
});

describe('formatRelative', () => {
  const now = new Date(at);
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

  it('is "less than a minute ago" under a minute and for a future time (clock skew)', () => {
    expect(formatRelative(ago(0), now)).toBe('less than a minute ago');
    expect(formatRelative(ago(59), now)).toBe('less than a minute ago');
    expect(formatRelative(ago(-30), now)).toBe('less than a minute ago');
  });

  it('counts whole units at each step boundary and one second before it', () => {
    expect(formatRelative(ago(60), now)).toBe('1 minute ago');
    expect(formatRelative(ago(3599), now)).toBe('59 minutes ago');
    expect(formatRelative(ago(3600), now)).toBe('1 hour ago');
    expect(formatRelative(ago(86_399), now)).toBe('23 hours ago');
    expect(formatRelative(ago(86_400), now)).toBe('1 day ago');
    expect(formatRelative(ago(30 * 86_400 - 1), now)).toBe('29 days ago');
    expect(formatRelative(ago(30 * 86_400), now)).toBe('1 month ago');
    expect(formatRelative(ago(365 * 86_400), now)).toBe('1 year ago');
    expect(formatRelative(ago(3 * 365 * 86_400), now)).toBe('3 years ago');
  });
});
