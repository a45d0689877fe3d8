import 'server-only';
import { confusablesMap } from 'confusables';
import skeletons from 'unhomoglyph/data.json';

/**
 * How a reader might see text when it looks for tags: each code point on its own is mapped through Unicode
 * compatibility decomposition (the K of NFKC: fullwidth ＜, small ﹤ and ≮ all give `<`, fullwidth letters give
 * ASCII), lowercased, and stripped of everything that doesn't show: whitespace (including tabs and newlines),
 * controls, format characters (zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls), other
 * default-ignorable code points and combining marks. What remains is folded through the look-alike table of the
 * `confusables` package (Cyrillic `е`, `ѕ` and `м`, Greek, Cherokee and Lisu letters that look Latin), and what it
 * doesn't know through Unicode's own confusables data (UTS #39 skeletons, from the `unhomoglyph` package: `‹`, `˂`,
 * `ᐸ` read as `<`), so a name spelled in look-alikes reads as the name.
 *
 * The mapping is per code point and context free, so changing one code point changes only its own piece of
 * the view. Decomposing without recomposing means a combining mark can't hide a `<` by composing with it.
 */
const INVISIBLE = /[\p{White_Space}\p{Cc}\p{Cf}\p{M}\p{Default_Ignorable_Code_Point}]/gu;

export function codePointView(codePoint: string): string {
  const unit = codePoint.charCodeAt(0);
  if (codePoint.length === 1 && unit < 0x80) {
    if (unit <= 0x20 || unit === 0x7f) return ''; // controls (tab, newline, …) and space
    return unit >= 0x41 && unit <= 0x5a ? String.fromCharCode(unit + 0x20) : codePoint;
  }
  const view = codePoint.normalize('NFKD').toLowerCase().normalize('NFKD').replace(INVISIBLE, '');
  let folded = '';
  for (const ch of view) folded += lookAlike(ch);
  return folded === view ? view : folded.toLowerCase().replace(INVISIBLE, '');
}

const SKELETONS = skeletons as Record<string, string>;

/**
 * The Latin letter or ASCII sign a code point is taken for (itself when none). ASCII is itself: the skeletons map
 * plain letters too (`m` → `rn`), which would unspell the name. A skeleton that holds `<` among other signs (`≪`,
 * `⋖`) is not taken: only a code point read as a lone `<` opens a tag.
 */
function lookAlike(ch: string): string {
  if (ch.charCodeAt(0) < 0x80) return ch;
  const letter = confusablesMap.get(ch);
  if (letter) return letter;
  const skeleton = SKELETONS[ch];
  return skeleton !== undefined && (skeleton === '<' || !skeleton.includes('<')) ? skeleton : ch;
}

/** Every code point Unicode's confusables data reads as `sign` (for the scans that look for `<` first). */
export const lookAlikesOf = (sign: string): string[] => Object.keys(SKELETONS).filter((ch) => SKELETONS[ch] === sign && [...ch].length === 1);
