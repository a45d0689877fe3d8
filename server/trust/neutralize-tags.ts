import 'server-only';
import { codePointView, lookAlikesOf } from './tag-view';

/** Framework tag names: all start with `ensemble`, so any tag-like `<ensemble…` in data is defused. */
export const FRAMEWORK_TAGS = ['ensemble-request', 'ensemble-result', 'ensemble-context', 'ensemble-answer', 'ensemble-criteria'] as const;
/** Every code point whose view is `<`: its compatibility forms and its look-alikes (checked against all of Unicode by the tests). */
export const LESS_THAN_LIKE = new RegExp(`[<\u226e\ufe64\uff1c${lookAlikesOf('<').join('')}]`, 'u');
const BRACKETS = new RegExp(LESS_THAN_LIKE.source, 'gu');
/** In the view, a tag opening is `<`, at most one slash (or a slash lookalike decomposition leaves alone), `ensemble`. */
const SLASHES = new Set(['/', '\\', '\u2044', '\u2215', '\u29f8']);
const NAME = 'ensemble';

/**
 * Does the `<`-like code point ending at `after` open a framework tag, as a reader would see it? Walks the view of what
 * follows (tag-view.ts) only until the name is complete or a visible character breaks it, so the whole text
 * costs O(length): a scan stops at the first visible character that is not the next one of `/ensemble`.
 */
function opensTag(text: string, after: number): boolean {
  let matched = 0;
  let slash = false;
  for (let i = after; i < text.length; ) {
    const codePoint = String.fromCodePoint(text.codePointAt(i)!);
    i += codePoint.length;
    for (const ch of codePointView(codePoint)) {
      if (matched === 0 && !slash && SLASHES.has(ch)) slash = true;
      else if (ch === NAME[matched]) {
        if (++matched === NAME.length) return true;
      } else return false;
    }
  }
  return false;
}

/**
 * Defuse framework tag openings inside untrusted text so data can't close a block or pose as framework. Matching
 * happens on the tag view (tag-view.ts: compatibility forms, case, whitespace, zero-width and other invisible
 * characters folded away); only the `<` (or its lookalike) of each opening is replaced by `&lt;`, every other
 * character of the person's text is kept exactly as written.
 */
export function neutralizeTags(text: string): string {
  return text.replace(BRACKETS, (bracket: string, at: number) => (opensTag(text, at + bracket.length) ? '&lt;' : bracket));
}

/**
 * Untrusted values as JSON for a model to read (the shared context, tool results): every string is neutralized
 * before it is escaped, so `<\nensemble-…` inside a value can't survive as `<\\nensemble-…`, and the JSON text
 * once more for anything in keys.
 */
export function neutralizedJson(value: unknown): string {
  return neutralizeTags(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? neutralizeTags(v) : v)));
}
