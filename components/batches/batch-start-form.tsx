'use client';

import { useRouter } from 'next/navigation';
import { useDeferredValue, useMemo, useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createBatchAction } from '@/app/(app)/batches/actions';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { newClientId } from '@/lib/idempotency/client-id';
import { keyForDraft, type KeyedDraft } from '@/lib/idempotency/draft-key';
import { LIMITS } from '@/lib/limits';
import { measureText } from '@/lib/text-bounds';
import type { BatchTarget } from '@/lib/types/batch';
import { readBatchList, startTooLarge } from './read-list';
import { serverMessage } from './server-message';
import { ListInput } from './list-input';
import { ListPreview } from './list-preview';
import { batchKeys } from './queries';
import { checkTemplate } from './template';
import { TemplateField } from './template-field';
import { useHydrated } from './use-hydrated';

const B = LIMITS.batch;

/** A whole number within [min, max], or null. */
function wholeIn(text: string, min: number, max: number): number | null {
  if (!/^\d+$/.test(text.trim())) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** The API's target for the agent or team member a batch runs with. */
const targetBody = (target: BatchTarget) => (target.kind === 'agent' ? { agentId: target.agentId } : { teamId: target.teamId, memberId: target.memberId });

/**
 * "Run over a list" (issue 30): the list (pasted or uploaded, read and previewed in the browser), the prompt
 * template checked against its columns as the person types, how many items run at once and how often each is tried;
 * Start creates the batch and opens its page. A refusal — here or from the server — is said beside what it is
 * about, and everything typed stays. A retried Start after a lost answer sends the same idempotency key, so it
 * is the same batch.
 */
export function BatchStartForm({ target }: { target: BatchTarget }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const hydrated = useHydrated();
  const [text, setText] = useState('');
  const [fileName, setFileName] = useState<string | null>(null);
  const [template, setTemplate] = useState('');
  const [concurrency, setConcurrency] = useState(String(Math.min(3, B.maxConcurrency)));
  const [attempts, setAttempts] = useState(String(B.attempts.default));
  const [tried, setTried] = useState(false);
  const draftKey = useRef<KeyedDraft | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const templateRef = useRef<HTMLTextAreaElement>(null);

  // Reading a 512 KiB list on every key press would make typing lag: the list is read from the deferred text.
  const deferredText = useDeferredValue(text);
  const list = useMemo(() => (deferredText.trim() === '' ? null : readBatchList(deferredText, fileName ?? undefined)), [deferredText, fileName]);
  const parsed = list?.ok ? list : null;
  const check = parsed ? checkTemplate(template, parsed.columns) : template.trim() ? null : checkTemplate(template, []);
  const concurrencyValue = wholeIn(concurrency, 1, B.maxConcurrency);
  const attemptsValue = wholeIn(attempts, B.attempts.min, B.attempts.max);

  const tooLarge = useMemo(() => (parsed ? startTooLarge({ template, columns: parsed.columns, items: parsed.rows }) : null), [parsed, template]);
  const listError = list && !list.ok ? list.message : tried && !text.trim() ? 'Paste a list or upload a file first.' : null;

  const start = useMutation({
    mutationFn: (input: Parameters<typeof createBatchAction>[0]) => actionData(() => createBatchAction(input)),
    onSuccess: async ({ batch }) => {
      draftKey.current = null;
      await queryClient.invalidateQueries({ queryKey: batchKeys.list() });
      router.push(`/batches/${encodeURIComponent(batch.id)}`);
    },
  });

  function onStart() {
    setTried(true);
    start.reset();
    // What is in the box now, even if the deferred read has not caught up with the last key press.
    const current = text === deferredText ? list : text.trim() === '' ? null : readBatchList(text, fileName ?? undefined);
    if (!current?.ok) return listRef.current?.querySelector('textarea')?.focus();
    if (!checkTemplate(template, current.columns).ok || measureText(template, B.template).over) return templateRef.current?.focus();
    if (concurrencyValue === null || attemptsValue === null || startTooLarge({ template, columns: current.columns, items: current.rows })) return;
    const body = { target: targetBody(target), template, columns: current.columns, items: current.rows, concurrency: concurrencyValue, maxAttempts: attemptsValue };
    draftKey.current = keyForDraft(draftKey.current, JSON.stringify(body), newClientId);
    start.mutate({ ...body, idempotencyKey: draftKey.current.key });
  }

  const serverError = start.error ? serverMessage(start.error) : null;

  return (
    <form
      className="space-y-6"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onStart();
      }}
    >
      <div ref={listRef} className="space-y-4">
        <ListInput
          readOnly={!hydrated}
          text={text}
          fileName={fileName}
          error={listError}
          onTextChange={(next, name) => {
            setText(next);
            setFileName(name);
          }}
        />
        {parsed ? <ListPreview list={parsed} /> : null}
      </div>

      <TemplateField
        ref={templateRef}
        readOnly={!hydrated}
        template={template}
        onChange={setTemplate}
        columns={parsed?.columns ?? null}
        firstRow={parsed?.rows[0] ?? null}
        check={check}
        showError={tried}
      />

      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <NumberField
          label="Items at once"
          value={concurrency}
          onChange={setConcurrency}
          min={1}
          max={B.maxConcurrency}
          hint={`1 to ${B.maxConcurrency}. They share the machine fairly with your other work.`}
          error={concurrencyValue === null ? `Enter a whole number from 1 to ${B.maxConcurrency}.` : null}
        />
        <NumberField
          label="Tries per item"
          value={attempts}
          onChange={setAttempts}
          min={B.attempts.min}
          max={B.attempts.max}
          hint={`${B.attempts.min} to ${B.attempts.max}; an item that fails is tried again until then.`}
          error={attemptsValue === null ? `Enter a whole number from ${B.attempts.min} to ${B.attempts.max}.` : null}
        />
      </div>

      {tooLarge ? <Alert>{tooLarge}</Alert> : null}
      {serverError ? <Alert>Not started: {serverError}</Alert> : null}

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" pending={start.isPending || start.isSuccess} aria-disabled={tooLarge ? true : undefined}>
          {start.isPending || start.isSuccess ? 'Starting…' : `Start${parsed ? ` ${parsed.rows.length.toLocaleString('en-US')} ${parsed.rows.length === 1 ? 'item' : 'items'}` : ''}`}
        </Button>
        <span className="min-w-0 text-sm break-words text-zinc-600 dark:text-zinc-400">with {target.name}</span>
      </div>
    </form>
  );
}

function NumberField(props: { label: string; value: string; onChange: (value: string) => void; min: number; max: number; hint: string; error: string | null }) {
  const { label, value, onChange, min, max, hint, error } = props;
  return (
    <Field label={label} hint={hint} error={error ?? undefined}>
      <Input type="number" inputMode="numeric" min={min} max={max} step={1} value={value} onChange={(e) => onChange(e.target.value)} className="max-w-32" />
    </Field>
  );
}
