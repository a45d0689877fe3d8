/**
 * A list read for a batch: parse-list.ts with the batch's limits, then the same column and row rules the server
 * applies (lib/schemas/batch.ts), refused here in the person's words with the row or line the preview shows — so
 * Start never sends a list the server would refuse for its shape.
 */
import { LIMITS } from '@/lib/limits';
import { itemProblem } from '@/lib/schemas/batch';
import { controlCharacter, hasLoneSurrogate, jsonBytes } from '@/lib/text-bounds';
import { parseList, sizeOverLimit, type ListResult } from './parse-list';

const B = LIMITS.batch;
export const BATCH_LIST_LIMITS = { maxItems: B.maxItems, maxBytes: B.listBytes } as const;

/** Why a column name can't be a template field, or null (the server's columnName rule, said in words). */
export function columnProblem(name: string): string | null {
  if ([...name].length > B.column.maxChars) return `is longer than ${B.column.maxChars} characters`;
  if (/[{}]/.test(name)) return 'holds a brace ({ or }), which a {{field}} can’t name';
  if (name.trim() !== name) return 'starts or ends with a space';
  const control = controlCharacter(name);
  if (control || hasLoneSurrogate(name)) return `holds a character that can’t be stored (${control ?? 'an unpaired surrogate'})`;
  return null;
}

export function readBatchList(text: string, fileName?: string): ListResult {
  const list = parseList(text, BATCH_LIST_LIMITS, fileName);
  if (!list.ok) return list;
  const refuse = (message: string): ListResult => ({ ok: false, format: list.format, message });
  if (list.columns.length > B.maxColumns) return refuse(`The list has ${list.columns.length} columns; a batch may have at most ${B.maxColumns}.`);
  for (const column of list.columns) {
    const problem = columnProblem(column);
    if (problem) return refuse(`The column “${column}” ${problem}.`);
  }
  for (const [i, row] of list.rows.entries()) {
    const problem = itemProblem(row, list.columns);
    if (problem) return refuse(`${list.rowLabels[i]}: ${problem.replace(/^values are/, 'its values are')}.`);
  }
  return list;
}

/**
 * An uploaded list file's text, or why it can't be used. The bytes must be UTF-8: a file saved in another encoding
 * (a spreadsheet's plain "CSV" in Windows-1252, "Unicode text" in UTF-16) would otherwise be read with U+FFFD in
 * place of every accented letter, and each item would run with the damaged text without a word.
 */
export function listFileText(bytes: ArrayBuffer | Uint8Array, fileName: string): { ok: true; text: string } | { ok: false; message: string } {
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      message: `${fileName} is not UTF-8 text. Save it as “CSV UTF-8” (or UTF-8 JSONL) and upload it again. The box keeps what it held.`,
    };
  }
}

/** What the start form sends is within the server action's body (LIMITS.batch.actionBytes), or why not. */
export function startTooLarge(input: unknown): string | null {
  const bytes = jsonBytes(input);
  if (bytes <= B.actionBytes) return null;
  const shown = sizeOverLimit(bytes, B.actionBytes);
  return `This batch is ${shown.size} to send, more than the ${shown.limit} the browser may send at once. Split the list into smaller batches, or start it through the API (POST /api/v1/batches).`;
}
