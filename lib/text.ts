/** Text helpers shared by the browser and the server: JSON checks and cutting text to a bound. Counting lives in lib/text-bounds.ts. */
import { charCount, hasLoneSurrogate, utf8Bytes } from './text-bounds';

/**
 * True when any string (key or value) inside a JSON-like value holds a lone surrogate. Iterative (an explicit
 * stack), so a deeply nested value can't overflow the call stack.
 */
export function jsonHasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (hasLoneSurrogate(item)) return true;
    } else if (Array.isArray(item)) {
      for (const v of item) stack.push(v);
    } else if (item && typeof item === 'object') {
      for (const [k, v] of Object.entries(item)) {
        if (hasLoneSurrogate(k)) return true;
        stack.push(v);
      }
    }
  }
  return false;
}

/**
 * True when JSON text nests arrays/objects deeper than maxDepth (`[]` and `{}` are depth 1). A linear scan of the
 * brackets outside strings, meant to run before JSON.parse: nothing recursive ever sees a too-deep value.
 * Malformed text is not judged here (JSON.parse does that); only its bracket depth is.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++; // skip the escaped character (\" or \\ included)
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/**
 * Cut text to at most maxBytes of UTF-8 (and optionally maxChars code points) without splitting a character.
 */
export function truncateText(text: string, maxBytes: number, maxChars = Infinity): { text: string; truncated: boolean } {
  if (utf8Bytes(text) <= maxBytes && charCount(text) <= maxChars) return { text, truncated: false };
  let bytes = 0;
  let chars = 0;
  let out = '';
  for (const ch of text) {
    const b = utf8Bytes(ch);
    if (bytes + b > maxBytes || chars + 1 > maxChars) break;
    bytes += b;
    chars += 1;
    out += ch;
  }
  return { text: out, truncated: true };
}
