'use client';

import { useCallback, useEffect, useLayoutEffect, useRef } from 'react';
import { isNearBottom } from './scroll';

const documentScroller = () => (document.scrollingElement as HTMLElement | null) ?? document.documentElement;

/** The element that scrolls this content: the nearest ancestor that actually scrolls, else the document. */
function scrollParent(el: HTMLElement | null): HTMLElement {
  for (let node = el?.parentElement; node && node !== document.body; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if ((overflowY === 'auto' || overflowY === 'scroll') && node.scrollHeight > node.clientHeight) return node;
  }
  return documentScroller();
}

/**
 * Keep the view pinned to the newest content when `signature` changes, but only if the reader was already
 * near the bottom; someone reading older messages is left where they are. Attach `anchor` to the element that
 * wraps the content; `scrollToEnd` is for the moments the person asked for it (they just sent a message).
 */
export function useStickToBottom<E extends HTMLElement>(signature: string) {
  const anchor = useRef<E>(null);
  const pinned = useRef(true);

  useEffect(() => {
    // Scroll events do not bubble, but a capturing listener on the document sees every one, whichever
    // container (the page or a layout's scrolling region) turns out to hold the chat.
    const onScroll = (e: Event) => {
      const el = anchor.current;
      if (!el) return;
      const target = e.target === document ? documentScroller() : e.target;
      if (target instanceof HTMLElement && target.contains(el)) pinned.current = isNearBottom(target);
    };
    document.addEventListener('scroll', onScroll, { capture: true, passive: true });
    return () => document.removeEventListener('scroll', onScroll, { capture: true });
  }, []);

  const scrollToEnd = useCallback(() => {
    const target = scrollParent(anchor.current);
    target.scrollTop = target.scrollHeight;
    pinned.current = true;
  }, []);

  useLayoutEffect(() => {
    if (pinned.current) scrollToEnd();
  }, [signature, scrollToEnd]);

  return { anchor, scrollToEnd };
}
