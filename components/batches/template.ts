/**
 * The prompt template of a batch: `{{column}}` fields, each replaced by the item's value of that column. The form
 * checks it against the list's columns while the person types, so an unknown field is named before Start rather
 * than refused by the server, which reads fields with the same rule (lib/batch-template.ts; docs/api.md "Batches").
 */

import { templateFields } from '@/lib/batch-template';

export { renderTemplate, templateFields } from '@/lib/batch-template';

export type TemplateCheck =
  | { ok: true; fields: string[] }
  | { ok: false; fields: string[]; unknown: string[]; message: string };

const quoted = (name: string) => `{{${name}}}`;

/**
 * Whether every field names a column; the refusal names each unknown field and the columns there are. An empty
 * template is refused too; a template without fields is allowed (every item gets the same prompt).
 */
export function checkTemplate(template: string, columns: readonly string[]): TemplateCheck {
  const fields = templateFields(template);
  if (template.trim() === '') return { ok: false, fields, unknown: [], message: 'Write the prompt each item gets.' };
  const unknown = fields.filter((f) => !columns.includes(f));
  if (unknown.length === 0) return { ok: true, fields };
  const names = unknown.map((f) => (f === '' ? '{{}} (a field without a name)' : quoted(f))).join(', ');
  const known = columns.length ? `The columns are ${columns.map(quoted).join(', ')}.` : 'Add a list first: its columns are the fields.';
  return {
    ok: false,
    fields,
    unknown,
    message: `${unknown.length === 1 ? 'This field is' : 'These fields are'} not a column of the list: ${names}. ${known}`,
  };
}

/** What an insert-a-field button types: the field, at the cursor. */
export function insertField(template: string, column: string, selectionStart: number, selectionEnd: number): { text: string; cursor: number } {
  const field = quoted(column);
  const start = Math.max(0, Math.min(selectionStart, template.length));
  const end = Math.max(start, Math.min(selectionEnd, template.length));
  return { text: template.slice(0, start) + field + template.slice(end), cursor: start + field.length };
}
