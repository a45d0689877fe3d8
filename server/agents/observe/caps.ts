import 'server-only';
import { LIMITS } from '@/lib/limits';

/**
 * Cut text to LIMITS.runEvents.textChars code points (an emoji or a CJK character counts once, never split), so one
 * huge tool payload can't make an unbounded event row.
 */
export function capText(text: string): { text: string; truncated?: true } {
  const max = LIMITS.runEvents.textChars;
  // Fast path: a string of at most `max` UTF-16 units has at most `max` code points.
  if (text.length <= max) return { text };
  let chars = 0;
  let end = 0;
  for (const ch of text) {
    if (chars === max) return { text: text.slice(0, end), truncated: true };
    chars++;
    end += ch.length;
  }
  return { text };
}

/** JSON text of a value, capped like capText (undefined and unserializable values become their String form). */
export function capJson(value: unknown): { text: string; truncated?: true } {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return capText(text);
}
