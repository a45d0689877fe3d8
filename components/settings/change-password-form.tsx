'use client';

import { useActionState } from 'react';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { changePasswordAction } from '@/app/(app)/settings/actions';
import { LIMITS } from '@/lib/limits';
import type { ChangePasswordState } from '@/lib/types/auth-forms';

const INITIAL: ChangePasswordState = {};
const { minChars, maxChars } = LIMITS.user.password;

/**
 * Current password, new password twice, posted to the server action, which checks them with the same schema and
 * answers per field. The fields are cleared after every answer (React resets a form after its action): passwords
 * are never kept on screen. Every other browser is signed out; this one stays signed in.
 */
export const PASSWORD_CHANGED_MESSAGE = 'Password changed. Every other browser has been signed out and your API tokens were revoked; make new ones where you need them.';

export function ChangePasswordForm({ changed }: { changed?: boolean }) {
  const [state, formAction, pending] = useActionState<ChangePasswordState, FormData>(changePasswordAction, INITIAL);
  const errors = state.fields ?? {};
  return (
    <section aria-labelledby="password-heading" className="space-y-3">
      <h2 id="password-heading" className="text-lg font-semibold text-zinc-900 dark:text-zinc-50">
        Change password
      </h2>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Every other browser signed in to this account is signed out; this one stays signed in. Your API tokens are revoked.
      </p>
      {state.message ? (
        <Alert>{state.message}</Alert>
      ) : changed && state === INITIAL ? (
        <Alert tone="info">{PASSWORD_CHANGED_MESSAGE}</Alert>
      ) : null}
      <form action={formAction} className="max-w-md space-y-3">
        <Field label="Current password" error={errors.currentPassword}>
          <Input name="currentPassword" type="password" autoComplete="current-password" required />
        </Field>
        <Field label="New password" hint={`${minChars} to ${maxChars} characters.`} error={errors.newPassword}>
          <Input name="newPassword" type="password" autoComplete="new-password" required minLength={minChars} maxLength={maxChars} />
        </Field>
        <Field label="Confirm new password" error={errors.confirmPassword}>
          <Input name="confirmPassword" type="password" autoComplete="new-password" required />
        </Field>
        <Button type="submit" pending={pending}>
          {pending ? 'Changing…' : 'Change password'}
        </Button>
      </form>
    </section>
  );
}
