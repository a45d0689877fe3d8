/**
 * Motion the person's setting allows, for scrolling the code starts (CSS animations follow it through Tailwind's
 * `motion-safe:`, a house rule). Read when the scroll starts, so a setting changed while the page is open counts.
 */
export const REDUCED_MOTION_QUERY = '(prefers-reduced-motion: reduce)';

type MediaWindow = Pick<Window, 'matchMedia'>;
const currentWindow = (): MediaWindow | undefined => (typeof window === 'undefined' ? undefined : window);

/** Whether the person asked for reduced motion; false where there is no window (the server) or no matchMedia. */
export function prefersReducedMotion(win: MediaWindow | undefined = currentWindow()): boolean {
  return typeof win?.matchMedia === 'function' && win.matchMedia(REDUCED_MOTION_QUERY).matches;
}

/** A scroll's behavior: smooth, unless the person asked for reduced motion (then it jumps there: 'instant'). */
export function scrollBehavior(win: MediaWindow | undefined = currentWindow()): ScrollBehavior {
  return prefersReducedMotion(win) ? 'instant' : 'smooth';
}
