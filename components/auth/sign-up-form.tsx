import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { Alert } from '@/components/ui/misc';
import { LIMITS } from '@/lib/limits';
import type { AuthFormState } from '@/lib/types/auth-forms';
import { AuthSwitchLink } from './auth-card';
import { CredentialFields } from './credential-fields';

type Props = {
  /** The invitation code from /sign-up?invite=…, sent along as a hidden field. */
  invite?: string | null;
  /** Shown above the form (an invitation, the first account becoming the admin). */
  notice?: string;
  /** The refused attempt this page answers, if any. */
  state: AuthFormState;
};

/**
 * Email, password (8+ characters) and an optional name; a plain form (ADR 062) posting to /sign-up/submit, which
 * creates the account, signs in and opens /agents, or comes back here with what was refused (the values typed kept,
 * never the password) and the cursor in the first field in error.
 */
export function SignUpForm({ invite = null, notice, state }: Props) {
  const refused = (['email', 'password', 'name'] as const).find((f) => state.fields?.[f]);
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Create account</h1>
      {notice ? <Alert tone="info">{notice}</Alert> : null}
      {state.message ? <Alert>{state.message}</Alert> : null}
      <form method="post" action="/sign-up/submit" noValidate className="space-y-4">
        {invite ? <input type="hidden" name="invite" value={invite} /> : null}
        <CredentialFields
          purpose="sign-up"
          passwordHint={`At least ${LIMITS.user.password.minChars} characters.`}
          state={state}
          focus={refused === 'name' ? undefined : refused}
        />
        <Field label="Name" hint="Optional." error={state.fields?.name}>
          <Input type="text" name="name" autoComplete="name" defaultValue={state.values?.name ?? ''} autoFocus={refused === 'name'} />
        </Field>
        <Button type="submit" className="w-full">
          Create account
        </Button>
      </form>
      <AuthSwitchLink to="sign-in" />
    </div>
  );
}
