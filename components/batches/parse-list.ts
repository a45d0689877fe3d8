/**
 * A pasted or uploaded list, read in the browser before a batch starts (issue 30): CSV through papaparse (quotes,
 * quoted line breaks, a BOM), JSONL one object per line. The result is either the columns and rows the batch will
 * send, or one refusal that says where the list went wrong (the row, the line, the column), so a person can fix
 * the text in place: nothing here throws, and nothing is dropped silently (no renamed duplicate headers, no
 * skipped short rows).
 */
import Papa from 'papaparse';
import { formatBytes } from '@/lib/byte-size';
import { utf8Bytes } from '@/lib/text-bounds';

export type ListFormat = 'csv' | 'jsonl';

export type ListLimits = {
  /** Most rows one list may hold (the batch's item limit). */
  maxItems: number;
  /** Largest list, in UTF-8 bytes, pasted or uploaded. */
  maxBytes: number;
};

export type ParsedList = {
  ok: true;
  format: ListFormat;
  columns: string[];
  rows: Record<string, string>[];
  /** Where each row is, in the person's words: "Row 3" (CSV, counted after the header) or "Line 7" (JSONL). */
  rowLabels: string[];
};
export type ListRefusal = { ok: false; format: ListFormat | null; message: string };
export type ListResult = ParsedList | ListRefusal;

const BOM = '\ufeff';

const refuse = (format: ListFormat | null, message: string): ListRefusal => ({ ok: false, format, message });
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const quoted = (name: string) => `“${name}”`;

/** A size in the app's one byte wording (lib/byte-size.ts), in English as the rest of these messages. */
export const formatSize = (bytes: number) => formatBytes(bytes, 'en');

/**
 * A size that is over a limit, and the limit, worded for one sentence. Three significant digits can make both
 * read alike (one byte past 512 KiB is "512 KiB" too), which would say a list is refused for being its own limit:
 * then both carry their exact byte counts.
 */
export function sizeOverLimit(bytes: number, limit: number): { size: string; limit: string } {
  const size = formatSize(bytes);
  const shownLimit = formatSize(limit);
  if (size !== shownLimit) return { size, limit: shownLimit };
  const exact = (n: number) => `${size} (${plural(n, 'byte')})`;
  return { size: exact(bytes), limit: exact(limit) };
}

/**
 * The format a list is in: a file's extension says it; pasted text is JSONL when its first non-blank character
 * opens an object (a CSV header never starts with `{` in practice), CSV otherwise.
 */
export function detectFormat(text: string, fileName?: string): ListFormat {
  const ext = fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext === 'csv' || ext === 'tsv' || ext === 'txt') return 'csv';
  if (ext === 'jsonl' || ext === 'ndjson') return 'jsonl';
  return text.replace(BOM, '').trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

/** Read a list in the format its name or text says (detectFormat). */
export function parseList(text: string, limits: ListLimits, fileName?: string): ListResult {
  return detectFormat(text, fileName) === 'jsonl' ? parseJsonl(text, limits) : parseCsv(text, limits);
}

/** Size and emptiness, checked before any parsing: a list too large is refused without reading it. */
function precheck(text: string, format: ListFormat, limits: ListLimits): ListRefusal | string {
  const bytes = utf8Bytes(text);
  if (bytes > limits.maxBytes) {
    const shown = sizeOverLimit(bytes, limits.maxBytes);
    return refuse(format, `The list is ${shown.size}; a batch’s list may be at most ${shown.limit}.`);
  }
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  if (body.trim() === '') return refuse(format, 'The list is empty: paste or upload a CSV with a header row, or JSONL with one object per line.');
  return body;
}

function tooManyRows(format: ListFormat, count: number, limits: ListLimits): ListRefusal | null {
  return count > limits.maxItems
    ? refuse(format, `The list has ${plural(count, 'row')}; a batch may have at most ${plural(limits.maxItems, 'item')}.`)
    : null;
}

/** A header row must name every column once: a blank or repeated name would make `{{column}}` ambiguous. */
function checkColumns(format: ListFormat, names: string[], where: string): ListRefusal | null {
  const seen = new Set<string>();
  for (const [i, name] of names.entries()) {
    if (name === '') return refuse(format, `Column ${i + 1} of ${where} has no name. Give every column a name.`);
    if (seen.has(name)) return refuse(format, `${where.charAt(0).toUpperCase()}${where.slice(1)} names the column ${quoted(name)} twice. Column names must differ.`);
    seen.add(name);
  }
  return null;
}

/**
 * CSV with a header row. Rows are numbered from 1 after the header, as the preview shows them; a row with fewer
 * or more fields than the header is refused naming the row and the columns it misses, never padded or cut.
 */
export function parseCsv(text: string, limits: ListLimits): ListResult {
  const checked = precheck(text, 'csv', limits);
  if (typeof checked !== 'string') return checked;
  // Blank lines are spacing, not rows; a delimiter other than ',' (or a tab, from a spreadsheet's copy) is guessed.
  const parsed = Papa.parse<string[]>(checked, { header: false, skipEmptyLines: 'greedy', delimitersToGuess: [',', '\t', ';'] });
  // A quote opened and never closed swallows the rest of the file, and a stray one garbles its row: say where.
  const quoteError = parsed.errors.find((e) => e.code === 'InvalidQuotes') ?? parsed.errors.find((e) => e.type === 'Quotes');
  if (quoteError) {
    const where = quoteError.row ? `Row ${quoteError.row}` : 'The header row';
    return refuse(
      'csv',
      quoteError.code === 'InvalidQuotes'
        ? `${where} has a quote right after a quoted value. Inside quotes, write a quote as two (“""”).`
        : `${where} opens a quote that is never closed (a “"” starts a quoted value until the next “"”).`,
    );
  }
  const [header = [], ...records] = parsed.data;
  const columns = header.map((name) => name.trim());
  const columnError = checkColumns('csv', columns, 'the header row');
  if (columnError) return columnError;
  if (records.length === 0) return refuse('csv', 'The list has a header row but no rows under it.');
  const tooMany = tooManyRows('csv', records.length, limits);
  if (tooMany) return tooMany;

  const rows: Record<string, string>[] = [];
  for (const [i, record] of records.entries()) {
    if (record.length < columns.length) {
      const missing = columns.slice(record.length).map(quoted).join(', ');
      return refuse('csv', `Row ${i + 1} has ${plural(record.length, 'field')} but the header has ${plural(columns.length, 'column')}: it has no ${missing}.`);
    }
    if (record.length > columns.length) {
      return refuse('csv', `Row ${i + 1} has ${plural(record.length, 'field')}, more than the header’s ${plural(columns.length, 'column')}. A comma inside a value needs the value in quotes.`);
    }
    rows.push(Object.fromEntries(columns.map((c, j) => [c, record[j] ?? ''])));
  }
  return { ok: true, format: 'csv', columns, rows, rowLabels: rows.map((_, i) => `Row ${i + 1}`) };
}

const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value);

/**
 * JSONL: one JSON object per line, blank lines skipped, lines numbered as an editor numbers them. The first
 * object's keys are the columns; every later object must have exactly those keys. Values are text; numbers and
 * true/false are taken as their text, anything else (null, lists, objects) is refused naming the line and key.
 */
export function parseJsonl(text: string, limits: ListLimits): ListResult {
  const checked = precheck(text, 'jsonl', limits);
  if (typeof checked !== 'string') return checked;
  const lines = checked.split(/\r\n|\n|\r/);
  const filled = lines.reduce((n, line) => (line.trim() === '' ? n : n + 1), 0);
  const tooMany = tooManyRows('jsonl', filled, limits);
  if (tooMany) return tooMany;

  let columns: string[] | null = null;
  let firstLine = 0;
  const rows: Record<string, string>[] = [];
  const rowLabels: string[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const lineNo = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      const reason = err instanceof Error ? err.message : 'unreadable';
      return refuse('jsonl', `Line ${lineNo} is not valid JSON (${reason}). Each line must be one object, like {"name": "Ada"}.`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return refuse('jsonl', `Line ${lineNo} is ${describe(value)}, not an object. Each line must be one object, like {"name": "Ada"}.`);
    }
    const entries = Object.entries(value as Record<string, unknown>);
    const row: Record<string, string> = {};
    for (const [key, field] of entries) {
      if (typeof field === 'string') row[key] = field;
      else if (typeof field === 'number' || typeof field === 'boolean') row[key] = String(field);
      else return refuse('jsonl', `Line ${lineNo}: ${quoted(key)} is ${describe(field)}; values must be text, numbers or true/false.`);
    }
    if (columns === null) {
      columns = entries.map(([key]) => key);
      firstLine = lineNo;
      const columnError = checkColumns('jsonl', columns, `line ${lineNo}`);
      if (columnError) return columnError;
      if (columns.length === 0) return refuse('jsonl', `Line ${lineNo} is an empty object; the first line’s keys are the columns.`);
    } else {
      const missing = columns.filter((c) => !(c in row));
      if (missing.length) return refuse('jsonl', `Line ${lineNo} has no ${missing.map(quoted).join(', ')} (line ${firstLine} sets the columns).`);
      const extra = Object.keys(row).filter((k) => !columns!.includes(k));
      if (extra.length) return refuse('jsonl', `Line ${lineNo} has ${extra.map(quoted).join(', ')}, which line ${firstLine} does not (line ${firstLine} sets the columns).`);
    }
    rows.push(row);
    rowLabels.push(`Line ${lineNo}`);
  }
  return { ok: true, format: 'jsonl', columns: columns ?? [], rows, rowLabels };
}
