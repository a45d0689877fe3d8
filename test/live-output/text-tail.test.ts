import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { utf8Bytes } from '@/lib/text-bounds';
import { appendTail, EMPTY_TAIL, shownText, type TextTail } from '@/server/agents/live-output/text-tail';

const { maxChars, maxBytes } = LIMITS.liveOutput;
const CJK = '漢'; // 3 UTF-8 bytes
const EMOJI = '😀'; // 4 UTF-8 bytes, 2 UTF-16 units
const feed = (chunks: string[], tail: TextTail = EMPTY_TAIL) => chunks.reduce((t, c) => appendTail(t, c), tail);
/** What a viewer gets, and that the kept counts are the text's own. */
function kept(tail: TextTail) {
  expect({ chars: tail.chars, bytes: tail.bytes }).toEqual({ chars: codePoints(tail.text), bytes: utf8Bytes(tail.text) });
  return { text: tail.text, truncated: tail.truncated };
}
const codePoints = (text: string) => Array.from(text).length;

describe('live output tail: the newest text within LIMITS.liveOutput', () => {
  it(`ASCII: ${maxChars} characters are kept whole; one more drops the oldest`, async () => {
    const at = 'a'.repeat(maxChars - 1) + 'z';
    expect(kept(appendTail(EMPTY_TAIL, at))).toEqual({ text: at, truncated: false });
    const past = appendTail(EMPTY_TAIL, `X${at}`);
    expect(kept(past)).toEqual({ text: at, truncated: true });
  });

  it(`CJK: ${Math.floor(maxBytes / 3)} characters fit ${maxBytes} bytes; one more drops the oldest`, async () => {
    const n = Math.floor(maxBytes / 3);
    const at = CJK.repeat(n);
    expect(kept(appendTail(EMPTY_TAIL, at))).toEqual({ text: at, truncated: false });
    const past = appendTail(EMPTY_TAIL, `字${at}`);
    expect(kept(past)).toEqual({ text: at, truncated: true });
    expect(utf8Bytes(past.text)).toBeLessThanOrEqual(maxBytes);
  });

  it(`emoji: ${maxBytes / 4} fit exactly; one more drops a whole emoji, never half a surrogate pair`, async () => {
    const at = EMOJI.repeat(maxBytes / 4);
    expect(utf8Bytes(at)).toBe(maxBytes);
    expect(kept(appendTail(EMPTY_TAIL, at))).toEqual({ text: at, truncated: false });
    const past = appendTail(EMPTY_TAIL, `🎉${at}`);
    expect(kept(past)).toEqual({ text: at, truncated: true });
    // The byte bound falls just inside the first of two emoji: the first goes whole, the second stays whole.
    const rest = CJK.repeat((maxBytes - 4) / 3);
    const mixed = appendTail(EMPTY_TAIL, `${EMOJI}${EMOJI}${rest}`);
    expect(kept(mixed)).toEqual({ text: `${EMOJI}${rest}`, truncated: true });
    expect(utf8Bytes(mixed.text)).toBe(maxBytes);
    expect(kept(appendTail(EMPTY_TAIL, `x${EMOJI}${rest}`))).toEqual({ text: `${EMOJI}${rest}`, truncated: true });
  });

  it('is the same fed in chunks as in one piece, and stays within both bounds at every step', async () => {
    const words = Array.from({ length: 3_000 }, (_, i) => [`word${i} `, `${CJK}${CJK} `, `${EMOJI} `][i % 3]!);
    let tail = EMPTY_TAIL;
    for (const word of words) {
      tail = appendTail(tail, word);
      expect(codePoints(tail.text)).toBeLessThanOrEqual(maxChars);
      expect(utf8Bytes(tail.text)).toBeLessThanOrEqual(maxBytes);
      expect(tail.text.isWellFormed()).toBe(true);
      kept(tail);
    }
    expect(tail).toEqual(appendTail(EMPTY_TAIL, words.join('')));
    expect(words.join('').endsWith(tail.text)).toBe(true);
  });

  it('a pair split across two chunks is held back until its second half arrives, then shown whole', async () => {
    const first = feed(['Hi ', '\ud83d']);
    expect(shownText(first)).toBe('Hi ');
    const second = appendTail(first, '\ude00!');
    expect(shownText(second)).toBe(`Hi ${EMOJI}!`);
    expect(kept(second)).toEqual({ text: `Hi ${EMOJI}!`, truncated: false });
    // Split at the bound too: the joined pair is counted once, and the cut still falls between code points.
    const full = appendTail(EMPTY_TAIL, CJK.repeat((maxBytes - 4) / 3));
    const joined = appendTail(appendTail(appendTail(full, '\ud83d'), '\ude00'), 'z');
    expect(kept(joined)).toEqual({ text: `${CJK.repeat((maxBytes - 4) / 3 - 1)}${EMOJI}z`, truncated: true });
  });

  it('an empty chunk changes nothing', async () => {
    const tail = feed(['abc']);
    expect(appendTail(tail, '')).toBe(tail);
  });
});
