/** Autoscroll rule: follow new messages only when the reader is already at (or near) the bottom. */

export const NEAR_BOTTOM_PX = 120;

export function isNearBottom(
  m: { scrollTop: number; clientHeight: number; scrollHeight: number },
  threshold = NEAR_BOTTOM_PX,
): boolean {
  return m.scrollHeight - (m.scrollTop + m.clientHeight) <= threshold;
}
