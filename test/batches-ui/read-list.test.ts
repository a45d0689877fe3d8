import { describe, expect, it } from 'vitest';
import { listFileText, readBatchList, startTooLarge } from '@/components/batches/read-list';
import { LIMITS } from '@/lib/limits';
import { batchCreateSchema } from '@/lib/schemas/batch';

const B = LIMITS.batch;

function message(result: ReturnType<typeof readBatchList>) {
  if (result.ok) throw new Error('expected a refusal');
  return result.message;
}

describe('a list read for a batch (the server’s rules, refused before Start)', () => {
  it.each([
    ['ASCII', 'a', 1],
    ['CJK', '漢', 3],
    ['emoji', '😀', 4],
  ])('%s: a row whose values are exactly itemBytes is taken; one unit more is refused naming the row', (_n, unit, size) => {
    const value = unit.repeat(Math.floor(B.itemBytes / size)) + 'a'.repeat(B.itemBytes % size);
    expect(new TextEncoder().encode(value).length).toBe(B.itemBytes);
    const ok = readBatchList(`text\nfine\n${value}\n`);
    expect(ok.ok).toBe(true);
    // What the browser accepts the server's schema accepts too.
    if (ok.ok) expect(batchCreateSchema.safeParse({ target: { agentId: 'a1' }, template: '{{text}}', columns: ok.columns, items: ok.rows, concurrency: 1 }).success).toBe(true);
    expect(message(readBatchList(`text\nfine\n${value}${unit}\n`))).toMatch(new RegExp(`^Row 2: its values are ${(B.itemBytes + size).toLocaleString('en-US')} bytes, at most ${B.itemBytes.toLocaleString('en-US')}\\.$`));
    expect(message(readBatchList(`{"text":"ok"}\n\n{"text":"${value}${unit}"}`))).toMatch(/^Line 3: its values are/);
  });

  it('takes maxItems rows and refuses one more', () => {
    const rows = (n: number) => `n\n${Array.from({ length: n }, (_, i) => i).join('\n')}\n`;
    const list = readBatchList(rows(B.maxItems));
    expect(list.ok && list.rows.length).toBe(B.maxItems);
    expect(message(readBatchList(rows(B.maxItems + 1)))).toBe(`The list has 1,001 rows; a batch may have at most 1,000 items.`);
  });

  it('takes a list of exactly listBytes and refuses one byte more, before parsing', () => {
    const head = 'n\n';
    const atLimit = head + 'x'.repeat(B.listBytes - head.length);
    // One row of 512 KiB is over itemBytes: the size check comes first, so only one byte more says "too large".
    expect(message(readBatchList(atLimit))).toMatch(/^Row 1: its values are/);
    expect(message(readBatchList(`${atLimit}x`))).toBe('The list is 512 KiB (524,289 bytes); a batch’s list may be at most 512 KiB (524,288 bytes).');
  });

  it('refuses more columns than maxColumns, and column names a {{field}} can’t name', () => {
    const many = Array.from({ length: B.maxColumns + 1 }, (_, i) => `c${i}`);
    expect(readBatchList(`${many.slice(0, -1).join(',')}\n${many.slice(0, -1).map(() => 'v').join(',')}`).ok).toBe(true);
    expect(message(readBatchList(`${many.join(',')}\n${many.map(() => 'v').join(',')}`))).toBe(`The list has ${B.maxColumns + 1} columns; a batch may have at most ${B.maxColumns}.`);
    expect(message(readBatchList('a{b}\nv'))).toMatch(/^The column “a\{b\}” holds a brace/);
    expect(message(readBatchList(`${'名'.repeat(B.column.maxChars + 1)}\nv`))).toMatch(/is longer than 64 characters/);
    expect(readBatchList(`${'😀'.repeat(B.column.maxChars)}\nv`).ok).toBe(true);
    expect(message(readBatchList('{" a":"1"}'))).toMatch(/starts or ends with a space/);
  });

  it('refuses a control character in a value, naming the row and column', () => {
    expect(message(readBatchList('name\nok\nbad\u0007bell\n'))).toBe('Row 2: "name" contains a control character (U+0007).');
  });
});

describe('what the form sends', () => {
  it('is allowed up to actionBytes of JSON and refused past it, saying how to go on', () => {
    const fill = (n: number) => ({ t: 'x'.repeat(n - JSON.stringify({ t: '' }).length) });
    expect(startTooLarge(fill(B.actionBytes))).toBeNull();
    expect(startTooLarge(fill(B.actionBytes + 1))).toMatch(/^This batch is 977 KiB \(1,000,001 bytes\) to send, more than the 977 KiB \(1,000,000 bytes\) the browser may send at once\. Split the list/);
  });
});

describe('an uploaded list file is read as UTF-8 or refused', () => {
  it('reads UTF-8 (with or without a BOM), CJK and emoji as written', () => {
    const text = 'name,note\nJosé,漢字 😀\n';
    const plain = listFileText(new TextEncoder().encode(text), 'list.csv');
    expect(plain).toEqual({ ok: true, text });
    const withBom = listFileText(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]), 'list.csv');
    const list = readBatchList(withBom.ok ? withBom.text : '');
    expect(list.ok && list.rows).toEqual([{ name: 'José', note: '漢字 😀' }]);
  });

  it.each([
    ['Windows-1252 (a spreadsheet’s plain CSV)', [0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x4a, 0x6f, 0x73, 0xe9, 0x0a]],
    ['UTF-16 with its BOM', [0xff, 0xfe, 0x6e, 0x00, 0x0a, 0x00, 0x78, 0x00]],
  ])('refuses %s instead of running items with U+FFFD in place of letters', (_name, bytes) => {
    const read = listFileText(new Uint8Array(bytes), 'export.csv');
    expect(read).toEqual({
      ok: false,
      message: 'export.csv is not UTF-8 text. Save it as “CSV UTF-8” (or UTF-8 JSONL) and upload it again. The box keeps what it held.',
    });
  });
});
