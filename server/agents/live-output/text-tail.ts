import 'server-only';
import { LIMITS } from '@/lib/limits';

/** The newest text of a response, bounded; `truncated` once older text was dropped from the front. */
export type TextTail = { readonly text: string; readonly truncated: boolean };

export const EMPTY_TAIL: TextTail = Object.freeze({ text: '', truncated: false });

export type TailBound = { maxChars: number; maxBytes: number };

const DEFAULT_BOUND: TailBound = { maxChars: LIMITS.liveOutput.maxChars, maxBytes: LIMITS.liveOutput.maxBytes };

/** UTF-8 bytes of one code point (a lone surrogate is sent as U+FFFD: 3 bytes). */
const bytesOf = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/**
 * Append a chunk and keep the newest text within the bound (code points and UTF-8 bytes, like every text bound in
 * lib/text-bounds.ts). Cuts only between code points, so a surrogate pair is never split; a pair the provider split
 * across two chunks is whole again once its second half arrives. O(bound) per chunk: the kept text never grows
 * past the bound, whatever the response's length.
 */
export function appendTail(tail: TextTail, chunk: string, bound: TailBound = DEFAULT_BOUND): TextTail {
  if (!chunk) return tail;
  const text = tail.text + chunk;
  // Walk back from the end, one code point at a time, until the next one would not fit.
  let start = text.length;
  let chars = 0;
  let bytes = 0;
  while (start > 0) {
    const low = text.charCodeAt(start - 1);
    const high = start > 1 ? text.charCodeAt(start - 2) : 0;
    const pair = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
    const width = pair ? 2 : 1;
    const size = pair ? 4 : bytesOf(low);
    if (chars + 1 > bound.maxChars || bytes + size > bound.maxBytes) break;
    chars += 1;
    bytes += size;
    start -= width;
  }
  return start === 0 ? { text, truncated: tail.truncated } : { text: text.slice(start), truncated: true };
}

/**
 * The text as it may be shown: without a high surrogate waiting at the end for its partner (the provider's next
 * chunk brings it), so a viewer never receives half a character.
 */
export function shownText(tail: TextTail): string {
  const last = tail.text.charCodeAt(tail.text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? tail.text.slice(0, -1) : tail.text;
}
