/**
 * How long a text is and whether it fits its bound: the one rule behind the zod schemas (lib/schemas), the UI
 * counters (components/ui/char-counter) and the server's checks (server/teams/state), so a text the counter calls
 * fine is never refused by the server, and the reverse. Bounds are in code points (an emoji counts once, as a
 * person counts) and in UTF-8 bytes (what is stored and sent; CJK takes 3, most emoji 4).
 */

const encoder = new TextEncoder();

/** UTF-8 byte length of a string, as it would be stored or sent. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** UTF-8 byte length of a value's JSON text (request bodies, interrupt responses, context budgets). */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value));
}

/** Number of code points, so an emoji counts once. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** True when the string holds a UTF-16 surrogate half without its partner (it can't be encoded as UTF-8). */
export function hasLoneSurrogate(text: string): boolean {
  return !text.isWellFormed();
}

// C0 and C1 controls except tab, line feed and carriage return: a person never means them, Postgres `text` refuses
// U+0000, and the others print as nothing or garble a terminal reading an export (docs/decisions/046).
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u0080-\u009f]/;

/** The first control character a person's text must not hold, as "U+0000", or null. */
export function controlCharacter(text: string): string | null {
  const found = CONTROL_CHARACTER.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/** A text's bound; no `maxBytes` means only characters are counted. */
export type TextBound = { readonly maxChars: number; readonly maxBytes?: number };

/** A counter shows itself (and speaks) from this share of either bound on. */
export const NEAR_LIMIT_RATIO = 0.8;

export type TextMeasure = {
  chars: number;
  bytes: number;
  overChars: boolean;
  overBytes: boolean;
  over: boolean;
  /** At or past NEAR_LIMIT_RATIO of either bound (over included). */
  near: boolean;
};

export function measureText(text: string, bound: TextBound): TextMeasure {
  const chars = charCount(text);
  const bytes = utf8Bytes(text);
  const maxBytes = bound.maxBytes ?? Infinity;
  const overChars = chars > bound.maxChars;
  const overBytes = bytes > maxBytes;
  const near = chars >= bound.maxChars * NEAR_LIMIT_RATIO || bytes >= maxBytes * NEAR_LIMIT_RATIO;
  return { chars, bytes, overChars, overBytes, over: overChars || overBytes, near };
}

export type TextProblem =
  | { kind: 'required' }
  | { kind: 'invalid_character' }
  | { kind: 'control_character'; codePoint: string }
  | { kind: 'too_long'; measure: TextMeasure; bound: TextBound };

/**
 * Why a text does not fit, or null when it does. `required`: blank (whitespace only) is a problem. A lone
 * surrogate or a control character is checked before length: the text is refused whatever its length.
 * `allowControls`: for a check that models' text passes through too (a model's is repaired when stored, not refused).
 */
export function textProblem(
  text: string,
  bound: TextBound,
  { required = false, allowControls = false }: { required?: boolean; allowControls?: boolean } = {},
): TextProblem | null {
  if (required && text.trim() === '') return { kind: 'required' };
  if (hasLoneSurrogate(text)) return { kind: 'invalid_character' };
  const codePoint = allowControls ? null : controlCharacter(text);
  if (codePoint) return { kind: 'control_character', codePoint };
  const measure = measureText(text, bound);
  return measure.over ? { kind: 'too_long', measure, bound } : null;
}

const n = (v: number) => v.toLocaleString('en-US');

/** `what` names the text: "Message", "title". */
export function describeTextProblem(problem: TextProblem, what: string): string {
  switch (problem.kind) {
    case 'required':
      return `${what} is required`;
    case 'invalid_character':
      return `${what} contains an invalid character (an unpaired UTF-16 surrogate)`;
    case 'control_character':
      return `${what} contains a control character (${problem.codePoint}); remove it`;
    case 'too_long': {
      const { measure, bound } = problem;
      const limit = bound.maxBytes === undefined ? `${n(bound.maxChars)} characters` : `${n(bound.maxChars)} characters and ${n(bound.maxBytes)} UTF-8 bytes`;
      const now = bound.maxBytes === undefined ? `${n(measure.chars)} characters` : `${n(measure.chars)} characters, ${n(measure.bytes)} bytes`;
      return `${what} is too long: at most ${limit} (now ${now})`;
    }
  }
}

/** The counter's text: "12 / 4,000 characters · 12 / 8,000 bytes" (bytes only when the bound has them). */
export function counterLabel(measure: Pick<TextMeasure, 'chars' | 'bytes'>, bound: TextBound): string {
  const chars = `${n(measure.chars)} / ${n(bound.maxChars)} characters`;
  return bound.maxBytes === undefined ? chars : `${chars} · ${n(measure.bytes)} / ${n(bound.maxBytes)} bytes`;
}

/** The message for a text that does not fit, or null; blank counts as a problem unless `required` is false. */
export function boundedTextProblem(text: string, bound: TextBound, what: string, required = true): string | null {
  const problem = textProblem(text, bound, { required });
  return problem ? describeTextProblem(problem, what) : null;
}

/**
 * What a screen reader hears about the bound: nothing while the text is comfortably short, one sentence when it
 * comes near the limit and one when it goes past. It changes only at those two steps, not on every key press.
 */
export function boundAnnouncement(measure: Pick<TextMeasure, 'near' | 'over'>, bound: TextBound): string {
  const limit = bound.maxBytes === undefined ? `${n(bound.maxChars)} characters` : `${n(bound.maxChars)} characters or ${n(bound.maxBytes)} bytes`;
  if (measure.over) return `Over the limit of ${limit}: shorten the text.`;
  if (measure.near) return `Near the limit of ${limit}.`;
  return '';
}
