import { useLayoutEffect, useRef, type RefObject } from 'react';

/**
 * Keyboard focus that would otherwise drop to <body> (where a keyboard or screen-reader user loses their place):
 * giving it back after a dialog whose opener is gone, and moving it to what changed after an action.
 */

const HEADINGS = 'h1, h2, h3, h4, h5, h6';

const isShown = (el: Element) => el.getClientRects().length > 0;

/** Focus an element that is not focusable by itself (a heading, a status) without adding it to the Tab order. */
export function focusElement(el: HTMLElement): void {
  if (!el.hasAttribute('tabindex') && el.tabIndex < 0) el.setAttribute('tabindex', '-1');
  el.focus();
}

/** Nothing but <body> has focus (the focused element was removed, hidden or disabled). */
export const focusIsLost = () => !document.activeElement || document.activeElement === document.body;

/** How long after focus was given back its element may still be removed by what the dialog did (a list refetch). */
const REMOVAL_WATCH_MS = 5_000;

/**
 * Remember what has focus now (e.g. the button that opens a dialog), to give it back later. When that element is
 * gone by then (the row it sat in was deleted), focus goes to the heading of the part of the page it was in: the
 * nearest heading before the innermost of its former ancestors that is still on the page (for a deleted list row,
 * the heading above the list), or the page's first heading. Never to <body>.
 *
 * The element may also disappear just after it got focus back (the deleted row's list re-renders a moment after the
 * dialog closed): while it still would have had focus, a mutation observer moves focus to the heading then.
 */
export function rememberFocus(): { restore: () => void } {
  const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  const ancestors: Element[] = [];
  for (let el = opener?.parentElement ?? null; el && el !== document.body; el = el.parentElement) ancestors.push(el);
  const fallback = () => {
    const container = ancestors.find((el) => el.isConnected) ?? document.body;
    const heading = headingBefore(container) ?? [...document.querySelectorAll<HTMLElement>(HEADINGS)].find(isShown);
    if (heading) focusElement(heading);
  };
  return {
    restore() {
      if (!opener) return;
      if (!opener.isConnected || !isShown(opener)) return fallback();
      opener.focus();
      const observer = new MutationObserver(() => {
        if (opener.isConnected) return;
        stop();
        if (focusIsLost()) fallback();
      });
      const timer = setTimeout(() => stop(), REMOVAL_WATCH_MS);
      // The person moved on (focus went elsewhere): nothing to repair.
      const stop = () => {
        observer.disconnect();
        clearTimeout(timer);
        document.removeEventListener('focusin', stop);
      };
      observer.observe(document.body, { childList: true, subtree: true });
      document.addEventListener('focusin', stop);
    },
  };
}

/** The last shown heading before `container` in document order, outside it and outside any dialog. */
function headingBefore(container: Element): HTMLElement | null {
  let found: HTMLElement | null = null;
  for (const heading of document.querySelectorAll<HTMLElement>(HEADINGS)) {
    if (!(container.compareDocumentPosition(heading) & Node.DOCUMENT_POSITION_PRECEDING)) break;
    if (heading.contains(container) || heading.closest('dialog') || !isShown(heading)) continue;
    found = heading;
  }
  return found;
}

/**
 * After an action that changes `value` (a job's status), move focus to `target` (what shows the new value) once the
 * value has changed: `focusAfterChange(valueBefore)` once the action succeeded. The control that was pressed often
 * disappears with the change (Cancel on a cancelled job, the answer form of an answered question); focus follows the
 * change instead of dropping to <body>. Focus moves only while it is inside `scope` or lost, never away from where
 * the person has gone meanwhile.
 */
export function useFocusAfterChange<T>(value: T, target: RefObject<HTMLElement | null>, scope: RefObject<HTMLElement | null>) {
  const current = useRef(value);
  const waitingFor = useRef<{ from: T } | null>(null);

  // A layout effect: focus moves in the same commit that removed the focused control, before the browser paints.
  useLayoutEffect(() => {
    current.current = value;
    if (waitingFor.current && !Object.is(waitingFor.current.from, value)) {
      waitingFor.current = null;
      focusWithin(target.current, scope.current);
    }
  }, [value, target, scope]);

  return (from: T) => {
    if (Object.is(current.current, from)) waitingFor.current = { from };
    else focusWithin(target.current, scope.current);
  };
}

/** Focus `target`, unless the person has put the focus somewhere outside `scope` meanwhile. */
function focusWithin(target: HTMLElement | null, scope: HTMLElement | null): void {
  if (!target) return;
  if (!focusIsLost() && !scope?.contains(document.activeElement)) return;
  focusElement(target);
}
