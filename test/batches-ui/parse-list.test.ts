import { describe, expect, it } from 'vitest';
import { detectFormat, formatSize, parseCsv, parseJsonl, parseList, sizeOverLimit, type ListResult } from '@/components/batches/parse-list';

const LIMITS = { maxItems: 3, maxBytes: 200 };
const WIDE = { maxItems: 1_000, maxBytes: 1_000_000 };

function ok(result: ListResult) {
  if (!result.ok) throw new Error(`expected a list, got the refusal: ${result.message}`);
  return result;
}
function refused(result: ListResult) {
  if (result.ok) throw new Error(`expected a refusal, got ${result.rows.length} rows`);
  return result.message;
}

describe('CSV', () => {
  it('reads quoted commas, doubled quotes and line breaks inside quotes as one value each', () => {
    const list = ok(parseCsv('name,note\n"Lovelace, Ada","said ""hi""\nthen left"\nGrace,plain\n', WIDE));
    expect(list.columns).toEqual(['name', 'note']);
    expect(list.rows).toEqual([
      { name: 'Lovelace, Ada', note: 'said "hi"\nthen left' },
      { name: 'Grace', note: 'plain' },
    ]);
  });

  it('keeps CJK and emoji (astral characters, joined sequences) exactly, in headers and values', () => {
    const list = ok(parseCsv('名前,気分\n山田太郎,😀👩‍👩‍👧\n"李, 雷",🇯🇵\n', WIDE));
    expect(list.columns).toEqual(['名前', '気分']);
    expect(list.rows[0]).toEqual({ 名前: '山田太郎', 気分: '😀👩‍👩‍👧' });
    expect(list.rows[1]).toEqual({ 名前: '李, 雷', 気分: '🇯🇵' });
  });

  it('drops a leading BOM, so the first column is named as written (not "\\ufeffname")', () => {
    const list = ok(parseCsv('\ufeffname,city\r\nAda,London\r\n', WIDE));
    expect(list.columns).toEqual(['name', 'city']);
    expect(list.rows).toEqual([{ name: 'Ada', city: 'London' }]);
  });

  it('refuses duplicate headers naming the column, instead of renaming one of them', () => {
    expect(refused(parseCsv('name,city,name\nA,B,C\n', WIDE))).toMatch(/“name” twice/);
    // Spaces around a header are not part of its name: " name" repeats "name".
    expect(refused(parseCsv('name, name\nA,B\n', WIDE))).toMatch(/“name” twice/);
  });

  it('refuses a header without a name, saying which column', () => {
    expect(refused(parseCsv('name,,city\nA,B,C\n', WIDE))).toMatch(/Column 2 of the header row has no name/);
  });

  it('refuses an empty list, a BOM alone, blank lines alone, and a header without rows', () => {
    for (const text of ['', '\ufeff', '\n\n  \n']) expect(refused(parseCsv(text, WIDE))).toMatch(/The list is empty/);
    expect(refused(parseCsv('name,city\n\n', WIDE))).toMatch(/header row but no rows/);
  });

  it('refuses a short row naming the row and the columns it lacks; blank lines are not rows', () => {
    const message = refused(parseCsv('name,city,zip\nAda,London,1\n\nGrace\n', WIDE));
    expect(message).toMatch(/^Row 2 has 1 field but the header has 3 columns: it has no “city”, “zip”\./);
  });

  it('refuses a long row naming the row, and says how a comma inside a value is written', () => {
    expect(refused(parseCsv('name,city\nAda,London,UK\n', WIDE))).toMatch(/^Row 1 has 3 fields, more than the header’s 2 columns\. A comma inside a value needs the value in quotes/);
  });

  it('refuses an unclosed quote and a stray quote, naming the row', () => {
    expect(refused(parseCsv('name,city\nAda,"London\nGrace,Paris\n', WIDE))).toMatch(/^Row 1 opens a quote that is never closed/);
    expect(refused(parseCsv('name,city\nAda,London\nGrace,"Par"is\n', WIDE))).toMatch(/^Row 2 has a quote right after a quoted value/);
  });

  it('reads a one-column list and a tab-separated paste from a spreadsheet', () => {
    expect(ok(parseCsv('url\nhttps://a.example/x?y=1\nhttps://b.example\n', WIDE)).rows).toEqual([{ url: 'https://a.example/x?y=1' }, { url: 'https://b.example' }]);
    expect(ok(parseCsv('name\tcity\nAda\tLondon\n', WIDE)).rows).toEqual([{ name: 'Ada', city: 'London' }]);
  });

  it('takes exactly maxItems rows and refuses one more', () => {
    expect(ok(parseCsv('n\n1\n2\n3\n', LIMITS)).rows).toHaveLength(3);
    expect(refused(parseCsv('n\n1\n2\n3\n4\n', LIMITS))).toBe('The list has 4 rows; a batch may have at most 3 items.');
  });
});

describe('size limit (UTF-8 bytes, before parsing)', () => {
  // "n\n" is 2 bytes; the rest fills the list to exactly the limit.
  const filled = (unit: string, unitBytes: number, limit: number) => `n\n${unit.repeat((limit - 2) / unitBytes)}`;

  it.each([
    ['ASCII', 'a', 1],
    ['CJK', '漢', 3],
    ['emoji', '😀', 4],
  ])('%s: a list of exactly the limit is read, one byte more is refused with both sizes', (_name, unit, unitBytes) => {
    const limit = 2 + unitBytes * 12;
    const atLimit = filled(unit, unitBytes, limit);
    expect(ok(parseCsv(atLimit, { maxItems: 10, maxBytes: limit })).rows).toEqual([{ n: unit.repeat(12) }]);
    expect(refused(parseCsv(`${atLimit}!`, { maxItems: 10, maxBytes: limit }))).toBe(
      `The list is ${limit + 1} bytes; a batch’s list may be at most ${limit} bytes.`,
    );
    expect(refused(parseJsonl(`${atLimit}!`, { maxItems: 10, maxBytes: limit }))).toMatch(/^The list is \d+ bytes; a batch’s list may be at most/);
  });

  it('words sizes as the app’s one byte formatter does: binary units, three significant digits', () => {
    expect(refused(parseCsv('x'.repeat(1536), { maxItems: 1, maxBytes: 1024 }))).toBe('The list is 1.5 KiB; a batch’s list may be at most 1 KiB.');
    expect(refused(parseCsv('x'.repeat(3 * 1024 * 1024), { maxItems: 1, maxBytes: 2 * 1024 * 1024 }))).toBe('The list is 3 MiB; a batch’s list may be at most 2 MiB.');
    expect(formatSize(512 * 1024)).toBe('512 KiB');
  });

  it('at a KiB limit: the limit is read, one byte past is refused with exact counts, as both round to the limit', () => {
    const limit = 512 * 1024;
    const atLimit = `n\n${'x'.repeat(limit - 2)}`;
    expect(ok(parseCsv(atLimit, { maxItems: 1, maxBytes: limit })).rows).toHaveLength(1);
    expect(refused(parseCsv(`${atLimit}x`, { maxItems: 1, maxBytes: limit }))).toBe(
      'The list is 512 KiB (524,289 bytes); a batch’s list may be at most 512 KiB (524,288 bytes).',
    );
  });
});

describe('sizeOverLimit', () => {
  it('words a size and its limit apart, adding exact counts only when they would read alike', () => {
    expect(sizeOverLimit(1025, 1024)).toEqual({ size: '1 KiB (1,025 bytes)', limit: '1 KiB (1,024 bytes)' });
    expect(sizeOverLimit(1030, 1024)).toEqual({ size: '1.01 KiB', limit: '1 KiB' });
    expect(sizeOverLimit(1024, 1023)).toEqual({ size: '1 KiB', limit: '1,023 bytes' });
    expect(sizeOverLimit(1_000_001, 1_000_000)).toEqual({ size: '977 KiB (1,000,001 bytes)', limit: '977 KiB (1,000,000 bytes)' });
  });
});

describe('JSONL', () => {
  it('reads one object per line; the first line’s keys are the columns; numbers and booleans become text', () => {
    const list = ok(parseJsonl('{"name":"Ada","age":36,"ok":true}\r\n\n{"name":"李雷 😀","age":"7","ok":false}\n', WIDE));
    expect(list.columns).toEqual(['name', 'age', 'ok']);
    expect(list.rows).toEqual([
      { name: 'Ada', age: '36', ok: 'true' },
      { name: '李雷 😀', age: '7', ok: 'false' },
    ]);
  });

  it('names the malformed line as an editor numbers it (blank lines counted)', () => {
    const message = refused(parseJsonl('{"a":"1"}\n\n{"a":"2"\n{"a":"3"}', WIDE));
    expect(message).toMatch(/^Line 3 is not valid JSON \(/);
  });

  it('refuses a line that is not an object, and a value that is not text, naming line and key', () => {
    expect(refused(parseJsonl('{"a":"1"}\n["a"]', WIDE))).toMatch(/^Line 2 is a list, not an object/);
    expect(refused(parseJsonl('"just text"', WIDE))).toMatch(/^Line 1 is string, not an object/);
    expect(refused(parseJsonl('{"a":"1"}\n{"a":null}', WIDE))).toBe('Line 2: “a” is null; values must be text, numbers or true/false.');
    expect(refused(parseJsonl('{"a":{"b":1}}', WIDE))).toMatch(/^Line 1: “a” is an object/);
  });

  it('refuses a line missing a column, or with one the first line lacks', () => {
    expect(refused(parseJsonl('{"a":"1","b":"2"}\n{"a":"3"}', WIDE))).toBe('Line 2 has no “b” (line 1 sets the columns).');
    expect(refused(parseJsonl('\n{"a":"1"}\n{"a":"3","c":"4"}', WIDE))).toBe('Line 3 has “c”, which line 2 does not (line 2 sets the columns).');
  });

  it('refuses an empty first object and an empty key', () => {
    expect(refused(parseJsonl('{}\n{"a":"1"}', WIDE))).toMatch(/^Line 1 is an empty object/);
    expect(refused(parseJsonl('{"":"1"}', WIDE))).toMatch(/^Column 1 of line 1 has no name/);
  });

  it('refuses an empty list, and one line more than maxItems', () => {
    expect(refused(parseJsonl('\ufeff\n', WIDE))).toMatch(/The list is empty/);
    expect(ok(parseJsonl('{"n":1}\n{"n":2}\n{"n":3}\n', LIMITS)).rows).toHaveLength(3);
    expect(refused(parseJsonl('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}', LIMITS))).toBe('The list has 4 rows; a batch may have at most 3 items.');
  });
});

describe('format', () => {
  it('follows the file name first, then the text', () => {
    expect(detectFormat('{"a":1}', 'list.csv')).toBe('csv');
    expect(detectFormat('a,b', 'LIST.JSONL')).toBe('jsonl');
    expect(detectFormat('a,b', 'x.ndjson')).toBe('jsonl');
    expect(detectFormat('\ufeff  \n{"a":1}')).toBe('jsonl');
    expect(detectFormat('name\nAda')).toBe('csv');
  });

  it('parseList reads pasted JSONL as JSONL and pasted CSV as CSV', () => {
    expect(ok(parseList('{"a":"1"}', WIDE)).format).toBe('jsonl');
    expect(ok(parseList('a\n1', WIDE)).format).toBe('csv');
  });
});
