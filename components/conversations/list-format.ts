/** Pure helpers for the conversations list. */
import { formatDistance } from 'date-fns';
import type { Conversation } from './types';

/** What a list row calls the conversation: its title (the first message, cut), else a placeholder. */
export function conversationLabel(c: Pick<Conversation, 'title'>, max = 120): string {
  const title = c.title.replace(/\s+/g, ' ').trim();
  if (!title) return 'No messages yet';
  const points = Array.from(title);
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : title;
}

/** "3 minutes ago"; an unreadable date yields an empty string rather than throwing during render. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  // Clock skew between server and browser must not print "in 2 seconds".
  if (date.getTime() > now.getTime()) return 'just now';
  return formatDistance(date, now, { addSuffix: true });
}

/** Newest activity first, whatever order the server used. */
export function sortByUpdated<T extends Pick<Conversation, 'updatedAt'>>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}
