import { describe, expect, it } from 'vitest';
import { tokenClass } from '@/components/files/code-tokens';

describe('tokenClass', () => {
  it('colours a token by its innermost known type, with a dark variant', () => {
    expect(tokenClass(['token', 'keyword'])).toBe('text-purple-700 dark:text-purple-300');
    expect(tokenClass(['string', 'punctuation'])).toBe('text-zinc-600 dark:text-zinc-400');
    expect(tokenClass(['string', 'unknown-inner'])).toBe('text-emerald-800 dark:text-emerald-300');
  });

  it('leaves plain text and unknown types uncoloured', () => {
    expect(tokenClass(['plain'])).toBeUndefined();
    expect(tokenClass([])).toBeUndefined();
  });
});
