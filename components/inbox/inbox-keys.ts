/** The Inbox page's keys (ADR 056), as data: the handler and the "?" dialog read the same table. */
export const INBOX_KEYS = [
  { key: 'j', action: 'next', label: 'Next item' },
  { key: 'k', action: 'previous', label: 'Previous item' },
  { key: 'a', action: 'approve', label: 'Approve the focused tool call' },
  { key: 'd', action: 'decline', label: 'Decline the focused tool call' },
  { key: '?', action: 'help', label: 'Show these keys' },
] as const;

export type InboxKeyAction = (typeof INBOX_KEYS)[number]['action'];

type KeyInput = { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean; isComposing?: boolean; target: EventTarget | null };

/** Typing somewhere: a text field, a list box, anything editable. Keys typed there are text, never commands. */
export function isTyping(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== 'function') return false;
  const el = target as HTMLElement;
  return el.isContentEditable === true || el.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]') !== null;
}

/** What a key press asks of the inbox, or null: a modifier held, a composition under way or typing in a field. */
export function inboxKeyAction(event: KeyInput): InboxKeyAction | null {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing || isTyping(event.target)) return null;
  return INBOX_KEYS.find((k) => k.key === event.key)?.action ?? null;
}
