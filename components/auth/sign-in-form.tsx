'use client';

import { useEffect } from 'react';
import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/misc';
import { signInAction } from '@/app/actions/auth';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { SignInInput } from '@/lib/schemas/auth';
import { AuthSwitchLink } from './auth-switch-link';
import { CredentialFields } from './credential-fields';
import { useAuthForm } from './use-auth-form';

const resolver = lazyResolver(() => import('./form-resolvers').then((m) => m.signInResolver));

type Props = {
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
export function SignInForm({ callbackPath, initialMessage, signUpLink }: Props) {
  const { state, answered, pending, form, formProps } = useAuthForm<SignInInput>(signInAction, resolver, (typed) => ({ email: typed?.email ?? '', password: '' }));
  const {
    register,
    setValue,
    setFocus,
    formState: { errors },
  } = form;

  // A refused attempt clears the password and puts the cursor back there; the email stays as typed.
  useEffect(() => {
    if (!state.message) return;
    setValue('password', '');
    setFocus('password');
  }, [state, setValue, setFocus]);

  const message = state.message ?? (answered ? undefined : initialMessage);
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Sign in</h1>
      {message ? <Alert>{message}</Alert> : null}
      <form {...formProps} className="space-y-4">
        {callbackPath ? <input type="hidden" name="callbackUrl" value={callbackPath} /> : null}
        <CredentialFields
          purpose="sign-in"
          email={register('email')}
          password={register('password')}
          errors={{ email: errors.email?.message ?? state.fields?.email, password: errors.password?.message ?? state.fields?.password }}
        />
        <Button type="submit" className="w-full" pending={pending} aria-busy={pending || undefined}>
          Sign in
        </Button>
      </form>
      {signUpLink ? <AuthSwitchLink to="sign-up" /> : null}
    </div>
  );
}
