'use client';

import Link from 'next/link';
import { startTransition, useActionState, useEffect, type FormEvent } from 'react';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { SignInInput } from '@/lib/schemas/auth';
import type { AuthFormAction, AuthFormState } from '@/lib/types/auth-forms';
import { textLink } from '@/components/ui/button-variants';

const INITIAL: AuthFormState = {};
const resolver = lazyResolver(() => import('./form-resolvers').then((m) => m.signInResolver));

type Props = {
  /** The sign-in server action (the page hands it over: components never import app/). */
  action: AuthFormAction;
  /** Same-origin path to return to after signing in (already checked on the server). */
  callbackPath: string | null;
  /** A message to start with, e.g. after next-auth's HTTP flow sent the browser back here. */
  initialMessage?: string;
  /** False when sign-up is turned off: the link to it is not shown. */
  signUpLink: boolean;
};

/**
 * Validates in the browser with the same schema the server uses (loaded when the form first gets focus: ADR 053),
 * then posts to the server action. Before
 * hydration the form still works: it posts to the same action natively.
 */
export function SignInForm({ action, callbackPath, initialMessage, signUpLink }: Props) {
  const [state, formAction, pending] = useActionState<AuthFormState, FormData>(action, INITIAL);
  const {
    register,
    handleSubmit,
    setValue,
    setFocus,
    formState: { errors },
  } = useForm<SignInInput>({
    resolver,
    defaultValues: { email: state.values?.email ?? '', password: '' },
  });

  // A refused attempt clears the password and puts the cursor back there; the email stays as typed.
  useEffect(() => {
    if (!state.message) return;
    setValue('password', '');
    setFocus('password');
  }, [state, setValue, setFocus]);

  // With JavaScript: check in the browser first, then hand the form's data to the action.
  const submit = (event: FormEvent<HTMLFormElement>) => {
    const form = event.currentTarget;
    return handleSubmit(() => startTransition(() => formAction(new FormData(form))))(event);
  };

  const message = state.message ?? (state === INITIAL ? initialMessage : undefined);
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Sign in</h1>
      {message ? <Alert>{message}</Alert> : null}
      <form action={formAction} onSubmit={submit} onFocus={resolver.preload} noValidate className="space-y-4">
        {callbackPath ? <input type="hidden" name="callbackUrl" value={callbackPath} /> : null}
        <Field label="Email" error={errors.email?.message ?? state.fields?.email}>
          <Input type="email" autoComplete="username" inputMode="email" {...register('email')} />
        </Field>
        <Field label="Password" error={errors.password?.message ?? state.fields?.password}>
          <Input type="password" autoComplete="current-password" {...register('password')} />
        </Field>
        <Button type="submit" className="w-full" pending={pending} aria-busy={pending || undefined}>
          Sign in
        </Button>
      </form>
      {signUpLink ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          New here?{' '}
          <Link href="/sign-up" className={textLink}>
            Create account
          </Link>
        </p>
      ) : null}
    </div>
  );
}
