import { describe, expect, it } from 'vitest';
import { neutralizeTags } from '@/server/trust/neutralize-tags';

/**
 * What must not happen: a framework tag spelled with letters from another script that look Latin (Cyrillic `е`,
 * `ѕ`, `Е`, Cherokee and Lisu capitals) reaching a model as a tag a reader would take for ours. Text in those
 * scripts that spells no framework tag is left exactly as written.
 */
describe('neutralizeTags: look-alike letters', () => {
  it.each([
    ['a Cyrillic е', '<\u0435nsemble-request>', '&lt;\u0435nsemble-request>'],
    ['Cyrillic е and ѕ in a closing tag', '</\u0435n\u0455\u0435mble-result>', '&lt;/\u0435n\u0455\u0435mble-result>'],
    ['Cyrillic capitals', '<\u0415NS\u0415MBL\u0415-answer>', '&lt;\u0415NS\u0415MBL\u0415-answer>'],
    ['a Lisu ꓰ and a Cyrillic м', '<\ua4f0nse\u043cble-context>', '&lt;\ua4f0nse\u043cble-context>'],
    ['fullwidth bracket and Cyrillic letters', '\uff1c\u0435ns\u0435mbl\u0435-criteria>', '&lt;\u0435ns\u0435mbl\u0435-criteria>'],
    ['a single angle quotation mark ‹ (U+2039)', '\u2039ensemble-request>', '&lt;ensemble-request>'],
    ['a modifier letter ˂ (U+02C2) closing a block', '\u02c2/ensemble-result>', '&lt;/ensemble-result>'],
    ['Canadian syllabics ᐸ (U+1438) and a Cyrillic е', '\u1438\u0435nsemble-context>', '&lt;\u0435nsemble-context>'],
    ['a bracket outside the BMP (U+1D236) after text', 'ok \u{1d236}ensemble-answer>', 'ok &lt;ensemble-answer>'],
  ])('defuses %s', (_name, text, expected) => {
    expect(neutralizeTags(text)).toBe(expected);
  });

  it('keeps Cyrillic and Greek text that names no framework tag as written', () => {
    const text = '<еда> <Ελλάδα> <мама> <ѕмех> x<ensembl> <е> ‹quoted› ˂ᐸ 𝈶';
    expect(neutralizeTags(text)).toBe(text);
  });
});
