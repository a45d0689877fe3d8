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
function TeamGoalField({
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

type TeamText = { name: string; goal: string };

/**
 * A team's name and goal together (create, edit): `onChange` hears which field changed, so the form can clear that
 * field's error as it is edited.
 */
export function TeamTextFields({
  values,
  errors,
  refs,
  onChange,
  autoFocus,
  goalRows,
  goalAbout,
}: {
  values: TeamText;
  errors: Partial<TeamText>;
  refs: { name: Ref<HTMLInputElement>; goal: Ref<HTMLTextAreaElement> };
  onChange: (field: keyof TeamText, value: string) => void;
  autoFocus?: boolean;
  goalRows: number;
  goalAbout: ReactNode;
}) {
  return (
    <>
      <TeamNameField value={values.name} error={errors.name} inputRef={refs.name} autoFocus={autoFocus} onChange={(v) => onChange('name', v)} />
      <TeamGoalField value={values.goal} error={errors.goal} textareaRef={refs.goal} rows={goalRows} about={goalAbout} onChange={(v) => onChange('goal', v)} />
    </>
  );
}
