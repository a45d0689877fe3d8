import { describe, expect, it } from 'vitest';
import { listboxOptionId, nextActiveIndex } from '@/components/ui/listbox-keys';

describe('nextActiveIndex', () => {
  it('moves down and up, wrapping at both ends', () => {
    expect(nextActiveIndex('ArrowDown', 0, 3)).toBe(1);
    expect(nextActiveIndex('ArrowDown', 2, 3)).toBe(0);
    expect(nextActiveIndex('ArrowUp', 1, 3)).toBe(0);
    expect(nextActiveIndex('ArrowUp', 0, 3)).toBe(2);
  });

  it('starts from the first option going down and the last going up when none is active', () => {
    expect(nextActiveIndex('ArrowDown', -1, 3)).toBe(0);
    expect(nextActiveIndex('ArrowUp', -1, 3)).toBe(2);
  });

  it('jumps to the ends with PageUp and PageDown', () => {
    expect(nextActiveIndex('PageUp', 2, 3)).toBe(0);
    expect(nextActiveIndex('PageDown', 0, 3)).toBe(2);
  });

  it('leaves other keys (letters, Home, End, Enter) to the text field, and does nothing on an empty list', () => {
    for (const key of ['a', 'Home', 'End', 'Enter', 'Escape']) expect(nextActiveIndex(key, 0, 3)).toBeNull();
    expect(nextActiveIndex('ArrowDown', -1, 0)).toBeNull();
  });

  it('builds option ids from the listbox id and the option key', () => {
    expect(listboxOptionId('lb', 'm1')).toBe('lb-opt-m1');
  });
});
