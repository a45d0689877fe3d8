import { z } from 'zod';
import { LIMITS } from '../limits';
import { templateFields } from '../batch-template';
import { controlCharacter, hasLoneSurrogate, utf8Bytes } from '../text-bounds';
import { boundedText, idSchema } from './common';

const B = LIMITS.batch;

/** A column name: what a template's `{{field}}` names, so it holds no braces and no control characters. */
const columnName = z
  .string()
  .min(1, 'Required')
  .max(B.column.maxChars, `Must be at most ${B.column.maxChars} characters`)
  .refine((v) => !/[{}]/.test(v) && !controlCharacter(v) && !hasLoneSurrogate(v) && v.trim() === v, 'Must not hold braces, control characters or surrounding spaces');

export const batchTargetSchema = z.union([
  z.strictObject({ agentId: idSchema }),
  z.strictObject({ teamId: idSchema, memberId: idSchema }),
]);

/**
 * POST /api/v1/batches (and the browser's start action). Beyond each field's own bound: columns are distinct, every
 * template field is a column, every item has exactly the columns (refused naming the row), and an item's values fit
 * LIMITS.batch.itemBytes together. The message counts rows from 1, as people and the browser's list do; the path
 * (`items.N`) stays the array's index.
 */
export const batchCreateSchema = z
  .strictObject({
    target: batchTargetSchema,
    template: boundedText({ ...B.template, minChars: 1 }),
    columns: z.array(columnName).min(1, 'At least one column').max(B.maxColumns, `At most ${B.maxColumns} columns`),
    items: z
      .array(z.record(z.string(), z.string()))
      .min(1, 'At least one item')
      .max(B.maxItems, `At most ${B.maxItems.toLocaleString('en-US')} items`),
    concurrency: z.number().int('Must be a whole number').min(1, 'Must be at least 1').max(B.maxConcurrency, `Must be at most ${B.maxConcurrency}`),
    maxAttempts: z.number().int('Must be a whole number').min(B.attempts.min, `Must be at least ${B.attempts.min}`).max(B.attempts.max, `Must be at most ${B.attempts.max}`).optional(),
    idempotencyKey: idSchema.optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    for (const [i, column] of body.columns.entries()) {
      if (seen.has(column)) ctx.addIssue({ code: 'custom', path: ['columns', i], message: `Duplicate column "${column}"` });
      seen.add(column);
    }
    const unknown = templateFields(body.template).filter((f) => !seen.has(f));
    if (unknown.length) ctx.addIssue({ code: 'custom', path: ['template'], message: `Unknown field ${unknown.map((f) => `{{${f}}}`).join(', ')}: not a column` });
    for (const [i, item] of body.items.entries()) {
      const problem = itemProblem(item, body.columns);
      if (problem) ctx.addIssue({ code: 'custom', path: ['items', i], message: `Row ${i + 1}: ${problem}` });
    }
  });
export type BatchCreateInput = z.output<typeof batchCreateSchema>;

/** What is wrong with one item against the columns, or null. */
export function itemProblem(item: Readonly<Record<string, string>>, columns: readonly string[]): string | null {
  const missing = columns.filter((c) => !Object.hasOwn(item, c));
  if (missing.length) return `missing ${missing.map((c) => `"${c}"`).join(', ')}`;
  const extra = Object.keys(item).filter((k) => !columns.includes(k));
  if (extra.length) return `not a column: ${extra.map((c) => `"${c}"`).join(', ')}`;
  let bytes = 0;
  for (const column of columns) {
    const value = item[column]!;
    if (hasLoneSurrogate(value)) return `"${column}" contains an unpaired UTF-16 surrogate`;
    const control = controlCharacter(value);
    if (control) return `"${column}" contains a control character (${control})`;
    bytes += utf8Bytes(value);
  }
  if (bytes > B.itemBytes) return `values are ${bytes.toLocaleString('en-US')} bytes, at most ${B.itemBytes.toLocaleString('en-US')}`;
  return null;
}

export const BATCH_EXPORT_FORMATS = ['jsonl', 'csv'] as const;
