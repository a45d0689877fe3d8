'use client';

import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { ApiError } from '@/lib/api-client';
import { createTokenSchema, type CreatedApiToken, type CreateTokenInput } from '@/lib/schemas/auth';
import { tokenKeys, tokensApi } from './tokens-api';

/** Names and creates a token; the parent shows the plain token once. The name stays when the server refuses. */
export function CreateTokenForm({ onCreated, disabled }: { onCreated: (token: CreatedApiToken) => void; disabled?: boolean }) {
  const queryClient = useQueryClient();
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors },
  } = useForm<CreateTokenInput>({ resolver: zodResolver(createTokenSchema), defaultValues: { name: '' } });

  const create = useMutation({
    mutationFn: (name: string) => tokensApi.create(name),
    onSuccess: async (token) => {
      reset({ name: '' });
      onCreated(token);
      await queryClient.invalidateQueries({ queryKey: tokenKeys.list });
    },
    onError: (err) => {
      const field = err instanceof ApiError ? err.fields.name : undefined;
      if (field) setError('name', { message: field }, { shouldFocus: true });
    },
  });

  const formError = create.isError && !(create.error instanceof ApiError && create.error.fields.name) ? create.error.message : null;
  return (
    <form onSubmit={handleSubmit(({ name }) => create.mutate(name))} noValidate className="space-y-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <div className="min-w-0 flex-1">
          <Field label="Token name" hint="What will use it, e.g. “laptop script”." error={errors.name?.message}>
            <Input type="text" autoComplete="off" {...register('name')} />
          </Field>
        </div>
        <Button type="submit" className="sm:mt-6" disabled={disabled || create.isPending}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </Button>
      </div>
      {formError ? <Alert>{formError}</Alert> : null}
    </form>
  );
}
