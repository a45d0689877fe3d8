/** Composer rules, kept pure so they are testable without a browser. */
import { LIMITS } from '@/lib/limits';
import { counterLabel as boundCounterLabel, hasLoneSurrogate, measureText, NEAR_LIMIT_RATIO } from '@/lib/text-bounds';

export type TextLimit = { maxChars: number; maxBytes: number };

export type DraftCheck = {
  chars: number;
  bytes: number;
  /** True when the counter should be visible: at or past this share of either bound. */
  nearLimit: boolean;
  tooLong: boolean;
  /** Nothing but whitespace. */
  blank: boolean;
  /** Why this draft cannot be sent; null when it can. Blank drafts carry no error (nothing to complain about yet). */
  error: string | null;
};

/** The counter appears once a draft uses this share of the characters or bytes (lib/text-bounds decides). */
export { NEAR_LIMIT_RATIO };

const fmt = (n: number) => n.toLocaleString('en-US');

export function checkDraft(text: string, limit: TextLimit = LIMITS.message): DraftCheck {
  const { chars, bytes, over: tooLong, near: nearLimit } = measureText(text, limit);
  const blank = text.trim() === '';
  let error: string | null = null;
  if (chars > limit.maxChars) {
    error = `Message is too long: ${fmt(chars)} characters, the limit is ${fmt(limit.maxChars)}.`;
  } else if (bytes > limit.maxBytes) {
    error = `Message is too long: ${fmt(bytes)} bytes, the limit is ${fmt(limit.maxBytes)} bytes (some characters take several bytes).`;
  } else if (hasLoneSurrogate(text)) {
    error = 'Message contains an invalid character; remove it and try again.';
  }
  return { chars, bytes, nearLimit, tooLong, blank, error };
}

/** "3,201 / 4,000 characters · 6,402 / 8,000 bytes" */
export function counterLabel(check: Pick<DraftCheck, 'chars' | 'bytes'>, limit: TextLimit = LIMITS.message): string {
  return boundCounterLabel(check, limit);
}
