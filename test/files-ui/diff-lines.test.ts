import { describe, expect, it } from 'vitest';
import { diffSummary, parseUnifiedDiff } from '@/components/files/diff-lines';

// What the `diff` library's createTwoFilesPatch prints for "a\nb\nc\n" → "a\nB\nc\nd 🎉\n".
const PATCH = [
  'Index: notes.md',
  '===================================================================',
  '--- notes.md\tv1',
  '+++ notes.md\tv2',
  '@@ -1,3 +1,4 @@',
  ' a',
  '-b',
  '+B',
  ' c',
  '+d 🎉',
  '',
].join('\n');

describe('parseUnifiedDiff', () => {
  it('drops the file headers and marks each line added, removed or unchanged with its numbers in both versions', () => {
    const model = parseUnifiedDiff(PATCH);
    expect(model.lines.map((l) => [l.kind, l.sign, l.text, l.oldLine, l.newLine])).toEqual([
      ['hunk', '', '@@ -1,3 +1,4 @@', null, null],
      ['context', '', 'a', 1, 1],
      ['removed', '−', 'b', 2, null],
      ['added', '+', 'B', null, 2],
      ['context', '', 'c', 3, 3],
      ['added', '+', 'd 🎉', null, 4],
    ]);
    expect(model.added).toBe(2);
    expect(model.removed).toBe(1);
  });

  it('gives every changed line a word for screen readers, so colour is never the only sign', () => {
    const { lines } = parseUnifiedDiff(PATCH);
    expect(lines.find((l) => l.kind === 'added')?.label).toBe('Added: ');
    expect(lines.find((l) => l.kind === 'removed')?.label).toBe('Removed: ');
    expect(lines.find((l) => l.kind === 'context')?.label).toBe('Unchanged: ');
  });

  it('reads a removed line that starts with "--" inside a hunk as a removal, not a header', () => {
    const patch = ['--- a', '+++ b', '@@ -1,2 +1,1 @@', '--- a list item', ' 二', ''].join('\n');
    const { lines, removed } = parseUnifiedDiff(patch);
    expect(removed).toBe(1);
    expect(lines[1]).toMatchObject({ kind: 'removed', text: '-- a list item', oldLine: 1 });
    expect(lines[2]).toMatchObject({ kind: 'context', text: '二', oldLine: 2, newLine: 1 });
  });

  it('keeps "No newline at end of file" as a note and follows several hunks with their own numbers', () => {
    const patch = [
      '@@ -1 +1 @@',
      '-x',
      '\\ No newline at end of file',
      '+y',
      '@@ -10,2 +10,2 @@',
      ' keep',
      '-old',
      '+new',
      '',
    ].join('\n');
    const { lines } = parseUnifiedDiff(patch);
    expect(lines.map((l) => l.kind)).toEqual(['hunk', 'removed', 'note', 'added', 'hunk', 'context', 'removed', 'added']);
    expect(lines[2]?.text).toBe('No newline at end of file');
    expect(lines[5]).toMatchObject({ oldLine: 10, newLine: 10 });
    expect(lines[7]).toMatchObject({ newLine: 11 });
  });

  it('shows an empty context line some tools print without its space', () => {
    const { lines } = parseUnifiedDiff(['@@ -1,2 +1,2 @@', '', '-a', '+b', ''].join('\n'));
    expect(lines[1]).toMatchObject({ kind: 'context', text: '', oldLine: 1, newLine: 1 });
  });

  it('has no lines for an empty diff', () => {
    expect(parseUnifiedDiff('')).toEqual({ lines: [], added: 0, removed: 0 });
    expect(parseUnifiedDiff('--- a\n+++ b\n').lines).toEqual([]);
  });
});

describe('diffSummary', () => {
  it('says the counts in words, and that nothing changed', () => {
    expect(diffSummary({ added: 1, removed: 0 })).toBe('1 line added, 0 removed');
    expect(diffSummary({ added: 2, removed: 3 })).toBe('2 lines added, 3 removed');
    expect(diffSummary({ added: 0, removed: 0 })).toBe('No changes between these versions.');
  });
});
