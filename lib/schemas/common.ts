import { z } from 'zod';
import { charCount, hasLoneSurrogate, utf8Bytes } from '../text';

type TextBounds = { maxChars: number; maxBytes?: number; minChars?: number; label?: string };

/**
 * A string bounded in characters (code points) and UTF-8 bytes, refusing unpaired surrogates.
 * The same schema validates browser forms and API bodies.
 */
export function boundedText({ maxChars, maxBytes, minChars = 0 }: TextBounds) {
  return z.string().superRefine((value, ctx) => {
    if (hasLoneSurrogate(value)) {
      ctx.addIssue({ code: 'custom', message: 'Contains an unpaired UTF-16 surrogate' });
      return;
    }
    const chars = charCount(value);
    if (minChars > 0 && value.trim().length === 0) {
      ctx.addIssue({ code: 'custom', message: 'Required' });
      return;
    }
    if (chars < minChars) ctx.addIssue({ code: 'custom', message: `Must be at least ${minChars} characters` });
    if (chars > maxChars) ctx.addIssue({ code: 'custom', message: `Must be at most ${maxChars.toLocaleString('en-US')} characters (now ${chars.toLocaleString('en-US')})` });
    if (maxBytes !== undefined) {
      const bytes = utf8Bytes(value);
      if (bytes > maxBytes) ctx.addIssue({ code: 'custom', message: `Must be at most ${maxBytes.toLocaleString('en-US')} bytes (now ${bytes.toLocaleString('en-US')})` });
    }
  });
}

export const idSchema = z.string().min(1).max(100);
