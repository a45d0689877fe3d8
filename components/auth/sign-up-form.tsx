'use client';

import { useEffect } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { signUpAction } from '@/app/actions/auth';
import { LIMITS } from '@/lib/limits';
import { lazyResolver } from '@/lib/forms/lazy-resolver';
import type { SignUpInput } from '@/lib/schemas/auth';
import { AuthSwitchLink } from './auth-switch-link';
import { CredentialFields } from './credential-fields';
import { useAuthForm } from './use-auth-form';

const resolver = lazyResolver(() => import('./form-resolvers').then((m) => m.signUpResolver));

/**
 * Email, password (8+ characters) and an optional name; on success the server signs in and opens /agents.
 * `invite` travels as a hidden field (the code from /sign-up?invite=…); `notice` is shown above the form.
 */
export function SignUpForm({ invite = null, notice }: { invite?: string | null; notice?: string }) {
  const { state, pending, form, formProps } = useAuthForm<SignUpInput>(signUpAction, resolver, (typed) => ({ email: typed?.email ?? '', password: '', name: typed?.name ?? '' }));
  const {
    register,
    setFocus,
    formState: { errors },
  } = form;

  // Put the cursor on the first field the server refused (e.g. an email that is taken).
  useEffect(() => {
    const first = (['email', 'password', 'name'] as const).find((f) => state.fields?.[f]);
    if (first) setFocus(first);
  }, [state, setFocus]);

  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
      {notice ? <Alert tone="info">{notice}</Alert> : null}
      {state.message ? <Alert>{state.message}</Alert> : null}
      <form {...formProps} className="space-y-4">
        {invite ? <input type="hidden" name="invite" value={invite} /> : null}
        <CredentialFields
          purpose="sign-up"
          passwordHint={`At least ${LIMITS.user.password.minChars} characters.`}
          email={register('email')}
          password={register('password')}
          errors={{ email: errors.email?.message ?? state.fields?.email, password: errors.password?.message ?? state.fields?.password }}
        />
        <Field label="Name" hint="Optional." error={errors.name?.message ?? state.fields?.name}>
          <Input type="text" autoComplete="name" {...register('name')} />
        </Field>
        <Button type="submit" className="w-full" pending={pending} aria-busy={pending || undefined}>
          Create account
        </Button>
      </form>
      <AuthSwitchLink to="sign-in" />
    </div>
  );
}
