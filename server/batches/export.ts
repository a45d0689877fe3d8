import 'server-only';
import { getBatch, itemsAfter } from './store';
import { batchItemOutcome } from './views';

const PAGE = 200;

/** The CSV's own columns around the batch's input columns. */
const FIXED = ['index', 'status', 'attempts', 'result', 'truncated', 'error'] as const;
const INPUT_PREFIX = 'input.';
const CSV_BOM = '\uFEFF';

/**
 * The CSV header for the batch's input columns. A column keeps its name unless a spreadsheet could take it for one of
 * the export's own (a FIXED name, in any case) or for a prefixed one (it starts with `input.`): those read
 * `input.<name>`. So every header is distinct, a fixed column always means the export's value, and stripping one
 * `input.` from a prefixed header gives the column's name back (JSONL nests the same values under `input`).
 */
export function csvInputHeaders(columns: readonly string[]): string[] {
  return columns.map((column) => {
    const folded = column.toLowerCase();
    const clashes = (FIXED as readonly string[]).includes(folded) || folded.startsWith(INPUT_PREFIX);
    return clashes ? INPUT_PREFIX + column : column;
  });
}

/** A CSV field: quoted when it holds a comma, quote, line break or leading/trailing space; a leading = + - @ neutralized. */
function csvField(value: string | number | boolean | null): string {
  let text = value === null ? '' : String(value);
  // Spreadsheets run a cell starting with these as a formula: a model's or a file's text must stay text.
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The owner's batch as a download, streamed: each pull reads one page of items (index order), so a large batch never
 * sits in memory. JSONL: one object per item, its input nested. CSV (after a UTF-8 byte order mark): index, status,
 * attempts, the batch's columns (named as csvInputHeaders says), result, truncated, error.
 */
export async function exportBatch(ownerId: string, id: string, format: 'jsonl' | 'csv') {
  const batch = await getBatch(ownerId, id);
  async function* chunks(): AsyncGenerator<string> {
    // The CSV opens with a UTF-8 byte order mark: without it Excel reads the file in the system's code page and garbles
    // every character outside ASCII (CJK, accents, emoji). Readers that know UTF-8 skip it.
    if (format === 'csv') yield CSV_BOM + ['index', 'status', 'attempts', ...csvInputHeaders(batch.columns), 'result', 'truncated', 'error'].map(csvField).join(',') + '\r\n';
    let after = -1;
    for (;;) {
      const items = await itemsAfter(batch.id, after, PAGE);
      if (!items.length) return;
      after = items.at(-1)!.idx;
      yield items
        .map((item) =>
          format === 'jsonl'
            ? JSON.stringify(batchItemOutcome(item)) + '\n'
            : [item.idx, item.status, item.attempts, ...batch.columns.map((c) => item.input[c] ?? ''), item.result, item.resultTruncated, item.error].map(csvField).join(',') + '\r\n',
        )
        .join('');
      if (items.length < PAGE) return;
    }
  }
  return {
    chunks: chunks(),
    contentType: format === 'jsonl' ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8',
    contentDisposition: `attachment; filename="batch-${batch.id}.${format}"`,
  };
}
