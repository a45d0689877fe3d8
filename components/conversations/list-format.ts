/** Pure helpers for the conversations list. */
import type { Conversation, ConversationActivity } from './types';

/** The row's word for what its newest run is doing; the word carries it, not the colour alone. */
export const ACTIVITY_BADGE: Record<ConversationActivity, { label: string; tone: 'info' | 'warning' }> = {
  working: { label: 'Working…', tone: 'info' },
  waiting_for_you: { label: 'Waiting for you', tone: 'warning' },
};

/** What a list row calls the conversation: its title (the first message, cut), else a placeholder. */
export function conversationLabel(c: Pick<Conversation, 'title'>, max = 120): string {
  const title = c.title.replace(/\s+/g, ' ').trim();
  if (!title) return 'No messages yet';
  const points = Array.from(title);
  return points.length > max ? `${points.slice(0, max - 1).join('')}…` : title;
}

/** Newest activity first, whatever order the server used. */
export function sortByUpdated<T extends Pick<Conversation, 'updatedAt'>>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}
