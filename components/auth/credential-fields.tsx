import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import type { AuthFormState } from '@/lib/types/auth-forms';

type Props = {
  /** Signing in to an account, or creating one: what the browser's password manager offers. */
  purpose: 'sign-in' | 'sign-up';
  /** Under the password field (sign-up says its bounds). */
  passwordHint?: string;
  /** The refused attempt this page shows, if any: its field errors and the email typed. */
  state: AuthFormState;
  /** The field the cursor starts in (the browser's autofocus: these pages run no script of their own). */
  focus?: 'email' | 'password';
};

/** The email and password fields of the sign-in and sign-up forms. */
export function CredentialFields({ purpose, passwordHint, state, focus }: Props) {
  const signUp = purpose === 'sign-up';
  return (
    <>
      <Field label="Email" error={state.fields?.email}>
        <Input
          type="email"
          name="email"
          required
          autoComplete={signUp ? 'email' : 'username'}
          inputMode="email"
          defaultValue={state.values?.email ?? ''}
          autoFocus={focus === 'email'}
        />
      </Field>
      <Field label="Password" hint={passwordHint} error={state.fields?.password}>
        <Input
          type="password"
          name="password"
          required
          autoComplete={signUp ? 'new-password' : 'current-password'}
          autoFocus={focus === 'password'}
        />
      </Field>
    </>
  );
}
