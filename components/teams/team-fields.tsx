'use client';

import type { ReactNode, Ref } from 'react';
import { CharCounter } from '@/components/ui/char-counter';
import { Field } from '@/components/ui/field';
import { Input, Textarea } from '@/components/ui/input';
import { LIMITS } from '@/lib/limits';

/** A team's name, counted against its bound as it is typed (create, clone, edit). */
export function TeamNameField({
  label = 'Name',
  value,
  error,
  onChange,
  inputRef,
  autoFocus,
}: {
  label?: string;
  value: string;
  error?: string;
  onChange: (value: string) => void;
  inputRef: Ref<HTMLInputElement>;
  autoFocus?: boolean;
}) {
  return (
    <Field label={label} error={error} hint={<CharCounter text={value} bound={LIMITS.team.name} />}>
      <Input ref={inputRef} value={value} onChange={(e) => onChange(e.target.value)} autoComplete="off" required autoFocus={autoFocus} />
    </Field>
  );
}

/** A team's goal, counted against its bound as it is typed; `about` says what the goal does here (create, edit). */
export function TeamGoalField({
  value,
  error,
  onChange,
  textareaRef,
  rows,
  about,
}: {
  value: string;
  error?: string;
  onChange: (value: string) => void;
  textareaRef: Ref<HTMLTextAreaElement>;
  rows: number;
  about: ReactNode;
}) {
  return (
    <Field
      label="Goal"
      error={error}
      hint={
        <>
          {about} <CharCounter text={value} bound={LIMITS.team.goal} />
        </>
      }
    >
      <Textarea ref={textareaRef} rows={rows} value={value} onChange={(e) => onChange(e.target.value)} required />
    </Field>
  );
}
