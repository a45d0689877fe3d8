import { describe, expect, it } from 'vitest';
import { prettyValue, previewValue } from '@/lib/tool-value-format';

describe('prettyValue', () => {
  it('indents objects and arrays', async () => {
    expect(prettyValue({ a: 1, b: ['x'] })).toBe('{\n  "a": 1,\n  "b": [\n    "x"\n  ]\n}');
  });

  it('re-indents strings that hold JSON and leaves other strings alone', async () => {
    expect(prettyValue('{"ok":true}')).toBe('{\n  "ok": true\n}');
    expect(prettyValue(' [1,2] ')).toBe('[\n  1,\n  2\n]');
    expect(prettyValue('{not json}')).toBe('{not json}');
    expect(prettyValue('plain <b>text</b>')).toBe('plain <b>text</b>');
  });

  it('handles empty and odd values without throwing', async () => {
    expect(prettyValue(undefined)).toBe('');
    expect(prettyValue(null)).toBe('null');
    expect(prettyValue(42)).toBe('42');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(prettyValue(cyclic)).toBe('[object Object]');
  });
});

describe('previewValue', () => {
  it('is one line, cut with an ellipsis, without splitting an emoji', async () => {
    expect(previewValue({ q: 'a\n  b' })).toBe('{"q":"a\\n b"}');
    expect(previewValue('x\n\ny')).toBe('x y');
    const cut = previewValue('😀'.repeat(100), 10);
    expect(Array.from(cut)).toHaveLength(10);
    expect(cut).toBe(`${'😀'.repeat(9)}…`);
    expect(previewValue(undefined)).toBe('');
  });
});
