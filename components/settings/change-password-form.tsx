'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { startTransition, useActionState, useEffect, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import type { ChangePasswordState } from '@/app/(app)/settings/actions';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import { changePasswordFormSchema, type ChangePasswordFormInput } from '@/lib/schemas/auth';

type Action = (prev: ChangePasswordState, formData: FormData) => Promise<ChangePasswordState>;

const INITIAL: ChangePasswordState = {};
const EMPTY: ChangePasswordFormInput = { currentPassword: '', newPassword: '', confirmPassword: '' };
const { minChars, maxChars } = LIMITS.user.password;

/**
 * Current password, new password twice. Checked in the browser with the server's schema, then posted to the
 * server action; every other browser is signed out and this one stays signed in.
 */
export function ChangePasswordForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState<ChangePasswordState, FormData>(action, INITIAL);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<ChangePasswordFormInput>({ resolver: zodResolver(changePasswordFormSchema), defaultValues: EMPTY });

  // The server's answer: field errors go next to their fields; success empties the form.
  useEffect(() => {
    if (state.ok) reset(EMPTY);
    let first = true;
    for (const [name, message] of Object.entries(state.fields ?? {})) {
      if (name in EMPTY) setError(name as keyof ChangePasswordFormInput, { message }, { shouldFocus: first });
      first = false;
    }
  }, [state, reset, setError]);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    return handleSubmit(() => startTransition(() => formAction(new FormData(form))))(event);
  };

  return (
    <section aria-labelledby="password-heading" className="space-y-3">
      <h2 id="password-heading" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
        Change password
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Every other browser signed in to this account is signed out; this one stays signed in. API tokens keep working.
      </p>
      {state.message ? <Alert tone={state.ok ? 'info' : 'danger'}>{state.message}</Alert> : null}
      <form action={formAction} onSubmit={submit} noValidate className="max-w-md space-y-3">
        <Field label="Current password" error={errors.currentPassword?.message}>
          <Input type="password" autoComplete="current-password" {...register('currentPassword')} />
        </Field>
        <Field label="New password" hint={`${minChars} to ${maxChars} characters.`} error={errors.newPassword?.message}>
          <Input type="password" autoComplete="new-password" {...register('newPassword')} />
        </Field>
        <Field label="Confirm new password" error={errors.confirmPassword?.message}>
          <Input type="password" autoComplete="new-password" {...register('confirmPassword')} />
        </Field>
        <Button type="submit" disabled={pending}>
          {pending ? 'Changing…' : 'Change password'}
        </Button>
      </form>
    </section>
  );
}
