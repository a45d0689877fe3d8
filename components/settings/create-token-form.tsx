'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { actionData } from '@/lib/action-result';
import { ApiError } from '@/lib/api-client';
import { createTokenSchema, currentPasswordSchema, type CreatedApiToken, type CreateTokenInput } from '@/lib/schemas/auth';
import { useSettingsActions } from './settings-actions';
import { tokenKeys } from './queries';

const EXPIRY_CHOICES = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: 'never', label: 'No expiry' },
] as const;

/** The form's own shape (a select gives strings); converted to the API's body on submit. */
const formSchema = z.object({
  name: createTokenSchema.shape.name,
  expiry: z.enum(['30', '90', 'never']),
  password: currentPasswordSchema,
});
type FormValues = z.input<typeof formSchema>;
const EMPTY: FormValues = { name: '', expiry: '90', password: '' };

const toBody = ({ name, expiry, password }: FormValues): CreateTokenInput => ({
  name,
  password,
  expiresInDays: expiry === 'never' ? null : (Number(expiry) as 30 | 90),
});

/**
 * Names a token, picks its lifetime and asks for the password again; the parent shows the plain token once.
 * The name and lifetime stay when the server refuses; the password is cleared.
 */
export function CreateTokenForm({ onCreated, disabled }: { onCreated: (token: CreatedApiToken) => void; disabled?: boolean }) {
  const queryClient = useQueryClient();
  const actions = useSettingsActions();
  const {
    register,
    handleSubmit,
    reset,
    resetField,
    setError,
    formState: { errors },
  } = useForm<FormValues>({ resolver: zodResolver(formSchema), defaultValues: EMPTY });

  const create = useMutation({
    mutationFn: (values: FormValues) => actionData(() => actions.createToken(toBody(values))),
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
    },
  });

  const fieldError = create.error instanceof ApiError && (create.error.fields.name || create.error.fields.password);
  const formError = create.isError && !fieldError ? create.error.message : null;
  return (
    <form onSubmit={handleSubmit((values) => create.mutate(values))} noValidate className="space-y-3" aria-label="Create API token">
      <div className="grid gap-3 sm:grid-cols-2">
        <Field label="Token name" hint="What will use it, e.g. “laptop script”." error={errors.name?.message}>
          <Input type="text" autoComplete="off" {...register('name')} />
        </Field>
        <Field label="Expires after" error={errors.expiry?.message}>
          <select
            {...register('expiry')}
            className="h-10 w-full rounded-md border border-zinc-300 bg-white px-3 text-sm text-zinc-900 focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
          >
            {EXPIRY_CHOICES.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </select>
        </Field>
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
