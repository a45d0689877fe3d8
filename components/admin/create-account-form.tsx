'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { CreateAccountFormValues as FormValues } from './create-account-resolver';
import { actionResult } from '@/lib/action-result';
import { createAccountAction } from '@/app/(app)/admin/actions';

/** The form's check (create-account-resolver.ts), loaded when the form first gets focus (ADR 053). */
const resolver = lazyResolver(() => import('./create-account-resolver').then((m) => m.createAccountResolver));
const FIELDS = ['email', 'name', 'password'] as const;

/** Email, optional name, initial password, and whether the account is an admin. Works while sign-up is closed. */
export function CreateAccountForm() {
  const router = useRouter();
  const [message, setMessage] = useState<{ tone: 'info' | 'danger'; text: string } | null>(null);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<FormValues>({ resolver, defaultValues: { email: '', name: '', password: '', admin: false } });

  const submit = handleSubmit(async ({ admin, ...values }) => {
    setMessage(null);
    const result = await actionResult(() => createAccountAction({ ...values, role: admin ? 'admin' : 'member' }));
    if (result.ok) {
      reset();
      setMessage({ tone: 'info', text: `Account ${result.data.email} created. Give them the initial password; they can sign in now.` });
      router.refresh();
      return;
    }
    const fields = result.error.fields ?? {};
    const onField = FIELDS.filter((field) => fields[field]);
    onField.forEach((field, i) => setError(field, { message: fields[field] }, { shouldFocus: i === 0 }));
    if (result.error.code === 'email_taken') setError('email', { message: result.error.message }, { shouldFocus: true });
    else if (onField.length === 0) setMessage({ tone: 'danger', text: result.error.message });
  });

  return (
    <form onSubmit={submit} onFocus={resolver.preload} noValidate aria-labelledby="create-account-heading" className="space-y-3">
      <h3 id="create-account-heading" className="font-medium text-zinc-900 dark:text-zinc-100">
        Create an account
      </h3>
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Email" error={errors.email?.message}>
          <Input type="email" autoComplete="off" inputMode="email" {...register('email')} />
        </Field>
        <Field label="Name" hint="Optional." error={errors.name?.message}>
          <Input type="text" autoComplete="off" {...register('name')} />
        </Field>
        <Field
          label="Initial password"
          hint={`At least ${LIMITS.user.password.minChars} characters. Share it privately.`}
          error={errors.password?.message}
        >
          <Input type="text" autoComplete="new-password" spellCheck={false} {...register('password')} />
        </Field>
        <label className="flex items-center gap-2 self-center text-sm text-zinc-800 sm:mt-6 dark:text-zinc-200">
          <input type="checkbox" className="size-4 accent-indigo-600" {...register('admin')} />
          Administrator (can use this page)
        </label>
      </div>
      <Button type="submit" disabled={isSubmitting}>
        {isSubmitting ? 'Creating…' : 'Create account'}
      </Button>
      {message ? <Alert tone={message.tone}>{message.text}</Alert> : null}
    </form>
  );
}
