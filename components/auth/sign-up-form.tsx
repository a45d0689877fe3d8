'use client';

import Link from 'next/link';
import { startTransition, useActionState, useEffect, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { SignUpInput } from '@/lib/schemas/auth';
import type { AuthFormAction, AuthFormState } from '@/lib/types/auth-forms';
import { textLink } from '@/components/ui/button-variants';

const INITIAL: AuthFormState = {};
const resolver = lazyResolver(() => import('./form-resolvers').then((m) => m.signUpResolver));

/**
 * Email, password (8+ characters) and an optional name; on success the server signs in and opens /agents.
 * `invite` travels as a hidden field (the code from /sign-up?invite=…); `notice` is shown above the form. `action` is
 * the sign-up server action, handed over by the page (components never import app/).
 */
export function SignUpForm({ action, invite = null, notice }: { action: AuthFormAction; invite?: string | null; notice?: string }) {
  const [state, formAction, pending] = useActionState<AuthFormState, FormData>(action, INITIAL);
  const {
    register,
    handleSubmit,
    setFocus,
    formState: { errors },
  } = useForm<SignUpInput>({
    resolver,
    defaultValues: { email: state.values?.email ?? '', password: '', name: state.values?.name ?? '' },
  });

  // Put the cursor on the first field the server refused (e.g. an email that is taken).
  useEffect(() => {
    const first = (['email', 'password', 'name'] as const).find((f) => state.fields?.[f]);
    if (first) setFocus(first);
  }, [state, setFocus]);

  // With JavaScript: check in the browser first, then hand the form's data to the action.
  const submit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    return handleSubmit(() => startTransition(() => formAction(new FormData(form))))(event);
  };

  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
      {notice ? <Alert tone="info">{notice}</Alert> : null}
      {state.message ? <Alert>{state.message}</Alert> : null}
      <form action={formAction} onSubmit={submit} onFocus={resolver.preload} noValidate className="space-y-4">
        {invite ? <input type="hidden" name="invite" value={invite} /> : null}
        <Field label="Email" error={errors.email?.message ?? state.fields?.email}>
          <Input type="email" autoComplete="email" inputMode="email" {...register('email')} />
        </Field>
        <Field
          label="Password"
          hint={`At least ${LIMITS.user.password.minChars} characters.`}
          error={errors.password?.message ?? state.fields?.password}
        >
          <Input type="password" autoComplete="new-password" {...register('password')} />
        </Field>
        <Field label="Name" hint="Optional." error={errors.name?.message ?? state.fields?.name}>
          <Input type="text" autoComplete="name" {...register('name')} />
        </Field>
        <Button type="submit" className="w-full" pending={pending} aria-busy={pending || undefined}>
          Create account
        </Button>
      </form>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Already have an account?{' '}
        <Link href="/sign-in" className={textLink}>
          Sign in
        </Link>
      </p>
    </div>
  );
}
