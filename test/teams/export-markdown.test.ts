import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { fenced, inline } from '@/server/teams/export-markdown';

/*
 * The export's two Markdown primitives against a CommonMark parser as the oracle: whatever the text, a fenced block
 * parses back to exactly that text in one code node, and an inline line to exactly that text in one heading — nothing
 * the text holds (fences, #, *, [, <, &, backslashes) turns into structure.
 */
type Node = { type: string; value?: string; children?: Node[] };
const walk = (n: Node, out: Node[] = []) => {
  out.push(n);
  for (const c of n.children ?? []) walk(c, out);
  return out;
};
const textOf = (n: Node): string => n.value ?? (n.children ?? []).map(textOf).join('');
// Controls included; not NUL: stored text never holds one (ADR 046), and a Markdown reader turns it into U+FFFD.
const tricky = fc
  .array(fc.constantFrom('#', '`', '```', '~~~', '*', '_', '[', ']', '(', ')', '<', '>', '&', 'amp;', '\\', '\n', ' ', '-', '!', '|', '=', '+', '.', '1', 'a', 'Z', '研', '🤖', '<script>', '</details>', '\u0007', '\u001b', '\u0085', '\uFFFD', '\t'), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('export Markdown primitives', () => {
  it('a fenced block gives back its text verbatim, as one code node', () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const nodes = walk(fromMarkdown(`Before\n\n${fenced(text)}\nAfter\n`) as Node);
        const code = nodes.filter((n) => n.type === 'code');
        expect(code).toHaveLength(1);
        expect(code[0]!.value).toBe(text.replace(/\n$/, ''));
        // The paragraph after the block is still a paragraph: the block closed where it should.
        expect(nodes.filter((n) => n.type === 'paragraph').map(textOf)).toEqual(['Before', 'After']);
      }),
      { numRuns: 400, seed: 29 },
    );
  });

  it('an inline line reads back as its text (line breaks folded) and adds no structure', () => {
    fc.assert(
      fc.property(tricky, (text) => {
        const expected = text.replace(/\n+/g, ' ').trim();
        fc.pre(expected.length > 0);
        const tree = fromMarkdown(`## ${inline(text)}\n`) as Node;
        expect(tree.children!.map((c) => c.type)).toEqual(['heading']);
        const inside = walk(tree.children![0]!).slice(1);
        expect(inside.every((n) => n.type === 'text')).toBe(true);
        expect(textOf(tree)).toBe(expected);
      }),
      { numRuns: 400, seed: 29 },
    );
  });

  it('a fence is one backtick longer than the longest run inside, at least three', () => {
    expect(fenced('plain')).toBe('```text\nplain\n```\n');
    expect(fenced('a ````` b').startsWith('``````text\n')).toBe(true);
  });
});
