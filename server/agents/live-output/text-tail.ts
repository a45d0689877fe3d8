import 'server-only';
import { LIMITS } from '@/lib/limits';

/**
 * The newest text of a response, bounded; `truncated` once older text was dropped from the front. `chars` (code
 * points) and `bytes` (UTF-8) are the text's own, kept so an append costs only the chunk and what it pushes out.
 */
export type TextTail = { readonly text: string; readonly truncated: boolean; readonly chars: number; readonly bytes: number };

export const EMPTY_TAIL: TextTail = Object.freeze({ text: '', truncated: false, chars: 0, bytes: 0 });

export type TailBound = { maxChars: number; maxBytes: number };

const DEFAULT_BOUND: TailBound = { maxChars: LIMITS.liveOutput.maxChars, maxBytes: LIMITS.liveOutput.maxBytes };

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** Code points and UTF-8 bytes of a string (a lone surrogate counts as U+FFFD: one character, 3 bytes). */
function measure(text: string): { chars: number; bytes: number } {
  let chars = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    chars += 1;
    if (isHigh(unit) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) {
      bytes += 4;
      i += 1;
    } else bytes += unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
  }
  return { chars, bytes };
}

/**
 * Append a chunk and keep the newest text within the bound (code points and UTF-8 bytes, like every text bound in
 * lib/text-bounds.ts). Cuts only between code points, so a surrogate pair is never split; a pair the provider split
 * across two chunks is whole again once its second half arrives. Costs the chunk plus the text it pushes out, so a
 * long response streamed in small chunks stays linear.
 */
export function appendTail(tail: TextTail, chunk: string, bound: TailBound = DEFAULT_BOUND): TextTail {
  if (!chunk) return tail;
  let text = tail.text + chunk;
  let { chars, bytes } = measure(chunk);
  chars += tail.chars;
  bytes += tail.bytes;
  // A high surrogate at the end of the kept text and a low one opening the chunk are one character, not two.
  if (isHigh(tail.text.charCodeAt(tail.text.length - 1)) && isLow(chunk.charCodeAt(0))) {
    chars -= 1;
    bytes -= 2; // 3 + 3 counted for two lone halves; the pair is 4.
  }
  if (chars <= bound.maxChars && bytes <= bound.maxBytes) return { text, truncated: tail.truncated, chars, bytes };
  // Drop whole code points from the front until both bounds hold.
  let start = 0;
  while (chars > bound.maxChars || bytes > bound.maxBytes) {
    const unit = text.charCodeAt(start);
    const pair = isHigh(unit) && isLow(text.charCodeAt(start + 1));
    chars -= 1;
    bytes -= pair ? 4 : unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
    start += pair ? 2 : 1;
  }
  text = text.slice(start);
  return { text, truncated: true, chars, bytes };
}

/**
 * The text as it may be shown: without a high surrogate waiting at the end for its partner (the provider's next
 * chunk brings it), so a viewer never receives half a character.
 */
export function shownText(tail: TextTail): string {
  return isHigh(tail.text.charCodeAt(tail.text.length - 1)) ? tail.text.slice(0, -1) : tail.text;
}
