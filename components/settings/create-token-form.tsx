'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input, Select } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { CreateTokenInput } from '@/lib/schemas/auth';
import type { CreatedApiToken } from '@/lib/types/api-token';
import type { CreateTokenFormValues as FormValues } from './create-token-resolver';
import { createTokenAction } from '@/app/(app)/settings/actions';
import { tokenKeys } from './queries';

const EXPIRY_CHOICES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: 'never', label: 'No expiry' },
] as const;

/** What a token may do (ADR 041). Read-only comes first and is preselected: the least a script needs is the default. */
const SCOPE_CHOICES = [
  { value: 'read', label: 'Read only', hint: 'Can read your agents, teams, conversations and runs; any change is refused.' },
  { value: 'full', label: 'Full access', hint: 'Can do everything you can, including creating, changing and deleting.' },
] as const;

/** The form's check (create-token-resolver.ts), loaded when the form first gets focus (ADR 053). */
const resolver = lazyResolver(() => import('./create-token-resolver').then((m) => m.createTokenResolver));
const EMPTY: FormValues = { name: '', expiry: '90', scope: 'read', password: '' };

const toBody = ({ name, expiry, scope, password }: FormValues): CreateTokenInput => ({
  name,
  password,
  scope,
  expiresInDays: expiry === 'never' ? null : (Number(expiry) as 30 | 90),
});

/**
 * Names a token, picks its lifetime and what it may do, and asks for the password again; the parent shows the plain
 * token once. The name, lifetime and access stay when the server refuses; the password is cleared.
 */
export function CreateTokenForm({ onCreated, disabled }: { onCreated: (token: CreatedApiToken) => void; disabled?: boolean }) {
  const queryClient = useQueryClient();
  const {
    register,
    handleSubmit,
    reset,
    resetField,
    setError,
    formState: { errors },
  } = useForm<FormValues>({ resolver, defaultValues: EMPTY });

  const create = useMutation({
    mutationFn: (values: FormValues) => actionData(() => createTokenAction(toBody(values))),
    onSuccess: async (token) => {
      reset(EMPTY);
      onCreated(token);
      await queryClient.invalidateQueries({ queryKey: tokenKeys.list });
    },
    onError: (err) => {
      resetField('password');
      if (!(err instanceof ApiError)) return;
      if (err.fields.password) setError('password', { message: err.fields.password }, { shouldFocus: true });
      else if (err.fields.name) setError('name', { message: err.fields.name }, { shouldFocus: true });
      else if (err.fields.scope) setError('scope', { message: err.fields.scope }, { shouldFocus: true });
    },
  });

  const fieldError = create.error instanceof ApiError && (create.error.fields.name || create.error.fields.password || create.error.fields.scope);
  const formError = create.isError && !fieldError ? create.error.message : null;
  return (
    <form onSubmit={handleSubmit((values) => create.mutate(values))} onFocus={resolver.preload} noValidate className="space-y-3" aria-label="Create API token">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Token name" hint="What will use it, e.g. “laptop script”." error={errors.name?.message}>
          <Input type="text" autoComplete="off" {...register('name')} />
        </Field>
        <Field label="Expires after" error={errors.expiry?.message}>
          <Select {...register('expiry')}>
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </Select>
        </Field>
        <fieldset className="sm:col-span-2">
          <legend className="text-sm font-medium text-zinc-900 dark:text-zinc-100">Access</legend>
          <div className="mt-1 space-y-2">
            {SCOPE_CHOICES.map((choice) => (
              <div key={choice.value} className="flex items-start gap-2">
                <input
                  type="radio"
                  id={`token-scope-${choice.value}`}
                  value={choice.value}
                  aria-describedby={`token-scope-${choice.value}-hint`}
                  className="mt-1 h-4 w-4 accent-indigo-600 focus:outline-2 focus:outline-offset-2 focus:outline-indigo-500"
                  {...register('scope')}
                />
                <div className="text-sm">
                  <label htmlFor={`token-scope-${choice.value}`} className="font-medium text-zinc-900 dark:text-zinc-100">
                    {choice.label}
                  </label>
                  <p id={`token-scope-${choice.value}-hint`} className="text-xs text-zinc-600 dark:text-zinc-400">
                    {choice.hint}
                  </p>
                </div>
              </div>
            ))}
          </div>
          {errors.scope?.message ? <p className="mt-1 text-sm text-red-700 dark:text-red-400">{errors.scope.message}</p> : null}
        </fieldset>
        <Field label="Your password" hint="Asked again before a new token is made." error={errors.password?.message}>
          <Input type="password" autoComplete="current-password" {...register('password')} />
        </Field>
      </div>
      <Button type="submit" disabled={disabled} pending={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create token'}
      </Button>
      {formError ? <Alert>{formError}</Alert> : null}
    </form>
  );
}
