/**
 * Keyboard movement in a listbox whose focus stays in a text field (the @mention composer): which option becomes
 * active for a key, or null when the key is not a listbox key (the field keeps it). Arrows wrap around; Home/End
 * are left to the text field (they move the caret there), PageUp/PageDown jump to the ends.
 */
export function nextActiveIndex(key: string, active: number, count: number): number | null {
  if (count <= 0) return null;
  switch (key) {
    case 'ArrowDown':
      return active < 0 || active >= count - 1 ? 0 : active + 1;
    case 'ArrowUp':
      return active <= 0 ? count - 1 : active - 1;
    case 'PageUp':
      return 0;
    case 'PageDown':
      return count - 1;
    default:
      return null;
  }
}

/** The DOM id of an option, for the text field's aria-activedescendant. */
export const listboxOptionId = (listboxId: string, key: string) => `${listboxId}-opt-${key}`;
