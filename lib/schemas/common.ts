import { z } from 'zod';
import { controlCharacter, hasLoneSurrogate, measureText, textProblem } from '../text-bounds';

// zod probes `new Function` once to decide whether to compile its parsers; under the CSP (no 'unsafe-eval') that
// probe is a reported violation in the browser. Don't probe: interpret. Set here, where every schema module starts
// (each imports this one), rather than in the root layout's providers, so pages without a form never load zod.
z.config({ jitless: true });

type TextBounds = { maxChars: number; maxBytes?: number; minChars?: number; label?: string };

/**
 * A string bounded in characters (code points) and UTF-8 bytes, refusing unpaired surrogates and control characters
 * other than tab, line feed and carriage return (ADR 046: a person's text is refused, not repaired). The same schema
 * validates browser forms and API bodies; whether a text fits is decided by lib/text-bounds (as counters and
 * server checks decide it), only the wording is the schema's.
 */
export function boundedText({ maxChars, maxBytes, minChars = 0 }: TextBounds) {
  return z.string().superRefine((value, ctx) => {
    const problem = textProblem(value, { maxChars, maxBytes }, { required: minChars > 0 });
    if (problem?.kind === 'invalid_character') {
      ctx.addIssue({ code: 'custom', message: 'Contains an unpaired UTF-16 surrogate' });
      return;
    }
    if (problem?.kind === 'control_character') {
      // Aborts: a schema refining further (an agent name's own control-character rule) adds no second message.
      ctx.addIssue({ code: 'custom', message: `Contains a control character (${problem.codePoint})`, continue: false });
      return;
    }
    if (problem?.kind === 'required') {
      ctx.addIssue({ code: 'custom', message: 'Required' });
      return;
    }
    const { chars, bytes, overChars, overBytes } = problem?.kind === 'too_long' ? problem.measure : measureText(value, { maxChars, maxBytes });
    if (chars < minChars) ctx.addIssue({ code: 'custom', message: `Must be at least ${minChars} characters` });
    if (overChars) ctx.addIssue({ code: 'custom', message: `Must be at most ${maxChars.toLocaleString('en-US')} characters (now ${chars.toLocaleString('en-US')})` });
    if (overBytes) ctx.addIssue({ code: 'custom', message: `Must be at most ${maxBytes!.toLocaleString('en-US')} bytes (now ${bytes.toLocaleString('en-US')})` });
  });
}

/** An id or idempotency key the client chose: stored and compared as given, so nothing in it may need repairing. */
export const idSchema = z
  .string()
  .min(1)
  .max(100)
  .refine((v) => !hasLoneSurrogate(v) && !controlCharacter(v), 'Must not contain control characters or unpaired surrogates');

/**
 * A query parameter holding a whole number in decimal digits (query values arrive as text; "1e2", "-0" and "" are
 * refused), within min..max, with the API's own wording rather than zod's ("Too small: expected number to be >=1").
 * Any count of digits is a whole number: one too large for a double is "at most", never "not a whole number".
 */
export const wholeNumberParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'Must be a whole number')
    // Digits only, so a whole number already; the cap keeps a number past a double's range finite for the bounds.
    .transform((digits) => Math.min(Number(digits), Number.MAX_VALUE))
    .pipe(z.number().min(min, `Must be at least ${min}`).max(max, `Must be at most ${max}`));

/** A query parameter that must be one of `values`, refused with the list (zod's own wording names no values). */
export const oneOfParam = <T extends string>(values: readonly [T, ...T[]]) => z.enum(values, { error: `Must be one of: ${values.join(', ')}` });
