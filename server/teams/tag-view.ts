import 'server-only';

/**
 * How a reader might see text when it looks for tags: each code point on its own is mapped through Unicode
 * compatibility decomposition (the K of NFKC: fullwidth ＜, small ﹤ and ≮ all give `<`, fullwidth letters give
 * ASCII), lowercased, and stripped of everything that doesn't show: whitespace (including tabs and newlines),
 * controls, format characters (zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls), other
 * default-ignorable code points and combining marks.
 *
 * The mapping is per code point and context free, so changing one code point changes only its own piece of
 * the view. Decomposing without recomposing means a combining mark can't hide a `<` by composing with it.
 */
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]/gu;

export function codePointView(codePoint: string): string {
  if (codePoint.length === 1 && codePoint.charCodeAt(0) < 0x80) {
    return /[\s\x00-\x1f\x7f]/.test(codePoint) ? '' : codePoint.toLowerCase();
  }
  return codePoint.normalize('NFKD').toLowerCase().normalize('NFKD').replace(INVISIBLE, '');
}

export type TagView = {
  /** The normalized text. */
  view: string;
  /** For each UTF-16 unit of `view`: the index of the code point in the original text that produced it. */
  origin: number[];
};

export function tagView(text: string): TagView {
  let view = '';
  const origin: number[] = [];
  let index = 0;
  for (const codePoint of text) {
    const piece = codePointView(codePoint);
    view += piece;
    for (let i = 0; i < piece.length; i++) origin.push(index);
    index += codePoint.length;
  }
  return { view, origin };
}
