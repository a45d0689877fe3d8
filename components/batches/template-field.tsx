'use client';

import { useId, useLayoutEffect, useRef } from 'react';
import { Button } from '@/components/ui/button';
import { CharCounter } from '@/components/ui/char-counter';
import { Field } from '@/components/ui/field';
import { Textarea } from '@/components/ui/input';
import { LIMITS } from '@/lib/limits';
import { measureText } from '@/lib/text-bounds';
import { insertField, renderTemplate, type TemplateCheck } from './template';

type Props = {
  template: string;
  onChange: (template: string) => void;
  /** The list's columns; null while there is no usable list. */
  columns: string[] | null;
  /** The first row, for the prompt preview. */
  firstRow: Record<string, string> | null;
  check: TemplateCheck | null;
  /** Show the check's refusal even before the person typed (after a Start with a bad template). */
  showError: boolean;
  /** Until the page is hydrated (batch-start-form.tsx). */
  readOnly: boolean;
  ref?: React.Ref<HTMLTextAreaElement>;
};

/**
 * The prompt template: a textarea checked against the list's columns as the person types (an unknown field named
 * in words), a button per column that types its `{{field}}` at the cursor (for keyboards and phones), and the first
 * row's prompt as it will be sent.
 */
export function TemplateField({ template, onChange, columns, firstRow, check, showError, readOnly, ref }: Props) {
  const errorId = useId();
  const box = useRef<HTMLTextAreaElement | null>(null);
  const pendingCursor = useRef<number | null>(null);

  // After an inserted field renders, the cursor goes right after it and focus stays in the box.
  useLayoutEffect(() => {
    const cursor = pendingCursor.current;
    if (cursor === null || !box.current) return;
    pendingCursor.current = null;
    box.current.focus();
    box.current.setSelectionRange(cursor, cursor);
  }, [template]);

  const insert = (column: string) => {
    const el = box.current;
    const { text, cursor } = insertField(template, column, el?.selectionStart ?? template.length, el?.selectionEnd ?? template.length);
    pendingCursor.current = cursor;
    onChange(text);
  };

  const tooLong = measureText(template, LIMITS.batch.template).over;
  const error = tooLong ? 'The template is too long.' : check && !check.ok && (showError || check.unknown.length > 0) ? check.message : null;
  const preview = check?.ok && firstRow && template.trim() ? renderTemplate(template, firstRow) : null;

  return (
    <div className="space-y-2">
      <Field
        label="Prompt template"
        hint={
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p>Each item gets this prompt with every {'{{column}}'} replaced by its row’s value.</p>
            <CharCounter text={template} bound={LIMITS.batch.template} onlyNearLimit />
          </div>
        }
      >
        <Textarea
          ref={(el) => {
            box.current = el;
            if (typeof ref === 'function') ref(el);
            else if (ref) ref.current = el;
          }}
          value={template}
          readOnly={readOnly}
          onChange={(e) => onChange(e.target.value)}
          rows={5}
          placeholder={columns?.length ? `Summarize {{${columns[0]}}} in one sentence.` : 'Summarize {{title}} in one sentence.'}
          aria-invalid={error ? true : undefined}
          aria-describedby={errorId}
        />
      </Field>
      {columns?.length ? (
        <div role="group" aria-label="Insert a field" className="flex flex-wrap items-center gap-1.5">
          <span className="text-xs text-zinc-600 dark:text-zinc-400">Insert:</span>
          {columns.map((column) => (
            <Button key={column} variant="secondary" size="sm" className="font-mono" onClick={() => insert(column)} aria-label={`Insert field ${column}`}>
              {`{{${column}}}`}
            </Button>
          ))}
        </div>
      ) : null}
      <p id={errorId} role="status" aria-live="polite" className="text-sm break-words text-red-700 dark:text-red-300">
        {error}
      </p>
      {preview !== null ? (
        <div className="space-y-1">
          <p className="text-xs font-medium text-zinc-600 dark:text-zinc-400">The first row’s prompt</p>
          <p className="max-h-40 overflow-auto rounded-md bg-zinc-50 p-2 text-sm break-words whitespace-pre-wrap text-zinc-800 dark:bg-zinc-800/60 dark:text-zinc-100">
            {preview}
          </p>
        </div>
      ) : null}
    </div>
  );
}
