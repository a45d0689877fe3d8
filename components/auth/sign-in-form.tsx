import { Button } from '@/components/ui/button';
import { Alert } from '@/components/ui/misc';
import type { AuthFormState } from '@/lib/types/auth-forms';
import { AuthSwitchLink } from './auth-card';
import { CredentialFields } from './credential-fields';

type Props = {
  /** Same-origin path to return to after signing in (already checked on the server). */
  callbackPath: string | null;
  /** The refused attempt this page answers, or a message next-auth's own HTTP flow sent back. */
  state: AuthFormState;
  /** False when sign-up is turned off: the link to it is not shown. */
  signUpLink: boolean;
};

/**
 * A plain form (ADR 062): it posts to /sign-in/submit, which signs in and redirects, or comes back here with what was
 * refused. The server checks every field; the browser's own checks are off so every message is the server's, in the
 * same words. A refusal keeps the email and puts the cursor in the field in error, else in the password field.
 */
export function SignInForm({ callbackPath, state, signUpLink }: Props) {
  const refusedField = state.fields?.email ? 'email' : state.fields?.password ? 'password' : undefined;
  const focus = refusedField ?? (state.message ? 'password' : undefined);
  return (
    <div className="space-y-5">
      <h1 className="text-xl font-semibold text-zinc-900 dark:text-zinc-50">Sign in</h1>
      {state.message ? <Alert>{state.message}</Alert> : null}
      <form method="post" action="/sign-in/submit" noValidate className="space-y-4">
        {callbackPath ? <input type="hidden" name="callbackUrl" value={callbackPath} /> : null}
        <CredentialFields purpose="sign-in" state={state} focus={focus} />
        <Button type="submit" className="w-full">
          Sign in
        </Button>
      </form>
      {signUpLink ? <AuthSwitchLink to="sign-up" /> : null}
    </div>
  );
}
