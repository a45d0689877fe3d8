import { describe, expect, it } from 'vitest';
import { INBOX_KEYS, inboxKeyAction, isTyping } from '@/components/inbox/inbox-keys';
import { inboxLinkName } from '@/components/inbox/inbox-nav-label';

/** A stand-in for a DOM element: `closest` answers whether it sits in one of the field selectors. */
const element = (inField: boolean, editable = false) =>
  ({ isContentEditable: editable, closest: (selector: string) => (inField && selector.includes('textarea') ? {} : null) }) as unknown as EventTarget;
const press = (key: string, extra: Partial<Parameters<typeof inboxKeyAction>[0]> = {}) =>
  inboxKeyAction({ key, ctrlKey: false, metaKey: false, altKey: false, target: element(false), ...extra });

describe('the Inbox keys', () => {
  it('j/k move, a/d approve or decline, ? lists the keys; anything else does nothing', () => {
    expect(['j', 'k', 'a', 'd', '?'].map((k) => press(k))).toEqual(['next', 'previous', 'approve', 'decline', 'help']);
    for (const k of ['J', 'A', 'x', 'Enter', ' ', 'ArrowDown']) expect(press(k), k).toBeNull();
  });

  it('is ignored while typing in a field or an editable element, with a modifier held, or mid-composition (CJK input)', () => {
    // What must not happen: "a" typed into a note approving a tool call.
    expect(press('a', { target: element(true) })).toBeNull();
    expect(press('d', { target: element(false, true) })).toBeNull();
    expect(press('a', { ctrlKey: true })).toBeNull();
    expect(press('j', { metaKey: true })).toBeNull();
    expect(press('k', { altKey: true })).toBeNull();
    expect(press('a', { isComposing: true })).toBeNull();
    expect(isTyping(null)).toBe(false);
  });

  it('the help dialog lists exactly the keys the handler takes', () => {
    expect(INBOX_KEYS.map((k) => k.key)).toEqual(['j', 'k', 'a', 'd', '?']);
  });

  it('names the nav link with its count, said once', () => {
    expect(inboxLinkName(undefined)).toBe('Inbox');
    expect(inboxLinkName(0)).toBe('Inbox');
    expect(inboxLinkName(3)).toBe('Inbox, 3 waiting');
  });
});
