'use client';

import { useEffect, useState, type RefObject } from 'react';

/**
 * Whether a sideways-scrolling region overflows at all (`any`) and can still scroll further right (`right`):
 * drives the visible "scrolls sideways" cues, re-measured on scroll and resize and when `deps` change.
 */
export function useScrollCue(ref: RefObject<HTMLElement | null>, deps: unknown[]) {
  const [more, setMore] = useState({ right: false, any: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      const any = el.scrollWidth > el.clientWidth + 1;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      // The same answer keeps the same object: no re-render.
      setMore((prev) => (prev.any === any && prev.right === right ? prev : { any, right }));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', update);
      observer.disconnect();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- callers pass what changes the content's size
  }, deps);
  return more;
}
