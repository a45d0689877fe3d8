/** Composer rules, kept pure so they are testable without a browser. */
import { LIMITS } from '@/lib/limits';
import { charCount, hasLoneSurrogate, utf8Bytes } from '@/lib/text';

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

/** The counter appears once a draft uses this share of the characters or bytes. */
export const NEAR_LIMIT_RATIO = 0.8;

const fmt = (n: number) => n.toLocaleString('en-US');

export function checkDraft(text: string, limit: TextLimit = LIMITS.message): DraftCheck {
  const chars = charCount(text);
  const bytes = utf8Bytes(text);
  const tooLong = chars > limit.maxChars || bytes > limit.maxBytes;
  const nearLimit = chars >= limit.maxChars * NEAR_LIMIT_RATIO || bytes >= limit.maxBytes * NEAR_LIMIT_RATIO;
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
  return `${fmt(check.chars)} / ${fmt(limit.maxChars)} characters · ${fmt(check.bytes)} / ${fmt(limit.maxBytes)} bytes`;
}

/** What a key press in the composer means: Cmd/Ctrl+Enter sends, plain Enter is a newline. */
export function isSendShortcut(e: { key: string; metaKey: boolean; ctrlKey: boolean; isComposing?: boolean }): boolean {
  return e.key === 'Enter' && (e.metaKey || e.ctrlKey) && !e.isComposing;
}
