/** Text measurements shared by validators in the browser and on the server. */

const encoder = new TextEncoder();

/** UTF-8 byte length of a string, as it would be stored or sent. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Number of user-perceived characters (code points), so an emoji counts once. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** True when the string holds a UTF-16 surrogate half without its partner. */
export function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

/** True when any string (key or value) inside a JSON-like value holds a lone surrogate. */
export function jsonHasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return hasLoneSurrogate(value);
  if (Array.isArray(value)) return value.some(jsonHasLoneSurrogate);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => hasLoneSurrogate(k) || jsonHasLoneSurrogate(v));
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
