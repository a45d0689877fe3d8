'use client';

import { useEffect, useRef, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { CharCounter } from '@/components/ui/char-counter';
import { Field } from '@/components/ui/field';
import { Input, Select, Textarea } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import type { DraftErrors, StateDraft } from './state-draft';
import { KIND_LABEL, KIND_ORDER, type StateKind } from './state-view';

type Props = {
  draft: StateDraft;
  onChange: (draft: StateDraft) => void;
  onSubmit: () => void;
  onCancel: () => void;
  /** Adding: the kind can be chosen; editing keeps it (as the member tools do). */
  kindEditable: boolean;
  errors: DraftErrors;
  /** A refusal that names no field (a team-wide bound, a lost connection). */
  failure?: string;
  pending: boolean;
  submitLabel: string;
};

/** Kind, title and content of a state entry, with the same counters and bounds the server checks. */
export function StateEntryForm({ draft, onChange, onSubmit, onCancel, kindEditable, errors, failure, pending, submitLabel }: Props) {
  const titleRef = useRef<HTMLInputElement>(null);
  const contentRef = useRef<HTMLTextAreaElement>(null);
  // Each save's errors (the form's own checks or the server's) move the focus to the first field that has one.
  useEffect(() => {
    if (errors.title) titleRef.current?.focus();
    else if (errors.content) contentRef.current?.focus();
  }, [errors]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form onSubmit={submit} className="mt-4 space-y-4" noValidate>
      {kindEditable ? (
        <Field label="Kind">
          <Select value={draft.kind} onChange={(e) => onChange({ ...draft, kind: e.target.value as StateKind })}>
            {KIND_ORDER.map((kind) => (
              <option key={kind} value={kind}>
                {KIND_LABEL[kind].one}
              </option>
            ))}
          </Select>
        </Field>
      ) : null}
      <Field label="Title" error={errors.title} hint={<CharCounter text={draft.title} bound={LIMITS.publicState.title} />}>
        <Input ref={titleRef} value={draft.title} onChange={(e) => onChange({ ...draft, title: e.target.value })} autoComplete="off" autoFocus />
      </Field>
      <Field label="Content" error={errors.content} hint={<CharCounter text={draft.content} bound={LIMITS.publicState.content} />}>
        <Textarea ref={contentRef} rows={6} value={draft.content} onChange={(e) => onChange({ ...draft, content: e.target.value })} />
      </Field>
      {failure ? <Alert>{failure}</Alert> : null}
      <div className="flex flex-wrap justify-end gap-2">
        <Button type="button" variant="secondary" onClick={onCancel} pending={pending}>
          Cancel
        </Button>
        <Button type="submit" pending={pending}>
          {pending ? 'Saving…' : submitLabel}
        </Button>
      </div>
    </form>
  );
}
