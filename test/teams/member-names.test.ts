import { describe, expect, it } from 'vitest';
import { deriveMemberNames } from '@/lib/member-names';
import { charCount, utf8Bytes } from '@/lib/text-bounds';

const within = (n: string) => charCount(n) <= 80 && utf8Bytes(n) <= 160;

describe('deriveMemberNames', () => {
  it('trims and makes names unique case-insensitively with (2), (3)', () => {
    expect(deriveMemberNames(['  Writer ', 'writer', 'Writer', 'Reviewer'])).toEqual(['Writer', 'writer (2)', 'Writer (3)', 'Reviewer']);
  });

  it('cuts ASCII names to 80 characters and keeps suffixes inside the bound', () => {
    const long = 'a'.repeat(81);
    const [first, second] = deriveMemberNames([long, long]);
    expect(first).toBe('a'.repeat(80));
    expect(second).toBe('a'.repeat(76) + ' (2)');
    expect([first, second].every((n) => n !== undefined && within(n))).toBe(true);
  });

  it('cuts CJK names at 160 bytes (53 characters of 3 bytes) and emoji at 40 characters of 4 bytes', () => {
    const [cjk, cjk2] = deriveMemberNames(['研'.repeat(80), '研'.repeat(80)]);
    expect(cjk).toBe('研'.repeat(53));
    expect(utf8Bytes(cjk2!)).toBeLessThanOrEqual(160);
    expect(cjk2!.endsWith(' (2)')).toBe(true);
    const [emoji, emoji2] = deriveMemberNames(['🤖'.repeat(41), '🤖'.repeat(40)]);
    expect(emoji).toBe('🤖'.repeat(40));
    expect(emoji2).toBe('🤖'.repeat(39) + ' (2)');
  });

  it('keeps a name at exactly the bounds unchanged', () => {
    expect(deriveMemberNames(['b'.repeat(80)])).toEqual(['b'.repeat(80)]);
    expect(deriveMemberNames(['é'.repeat(80)])).toEqual(['é'.repeat(80)]);
  });
});
