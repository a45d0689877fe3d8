/** Composer rules, kept pure so they are testable without a browser: the kit's text rules (lib/text-bounds). */
import { LIMITS } from '@/lib/limits';
import { describeTextProblem, measureText, NEAR_LIMIT_RATIO, textProblem, type TextBound } from '@/lib/text-bounds';

export type DraftCheck = {
  chars: number;
  bytes: number;
  /** True when the counter should be visible: at or past this share of either bound. */
  nearLimit: boolean;
  tooLong: boolean;
  /** Nothing but whitespace. */
  blank: boolean;
  /** Why this draft cannot be sent, in the kit's words; null when it can. Blank drafts carry no error (nothing to complain about yet). */
  error: string | null;
};

/** The counter appears once a draft uses this share of the characters or bytes (lib/text-bounds decides). */
export { NEAR_LIMIT_RATIO };

export function checkDraft(text: string, limit: TextBound = LIMITS.message): DraftCheck {
  const { chars, bytes, over: tooLong, near: nearLimit } = measureText(text, limit);
  // The server's rule: a lone surrogate or a control character is refused whatever the length (ADR 046).
  const problem = textProblem(text, limit);
  return { chars, bytes, nearLimit, tooLong, blank: text.trim() === '', error: problem ? describeTextProblem(problem, 'Message') : null };
}
