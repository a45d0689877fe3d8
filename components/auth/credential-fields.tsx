import type { UseFormRegisterReturn } from 'react-hook-form';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';

type Props = {
  /** Signing in to an account, or creating one: what the browser's password manager offers. */
  purpose: 'sign-in' | 'sign-up';
  /** Under the password field (sign-up says its bounds; the sign-in page does not load lib/limits for it). */
  passwordHint?: string;
  email: UseFormRegisterReturn<'email'>;
  password: UseFormRegisterReturn<'password'>;
  /** Each field's error: the browser's check first, else the server's. */
  errors: { email?: string; password?: string };
};

/** The email and password fields of the sign-in and sign-up forms. */
export function CredentialFields({ purpose, passwordHint, email, password, errors }: Props) {
  const signUp = purpose === 'sign-up';
  return (
    <>
      <Field label="Email" error={errors.email}>
        <Input type="email" autoComplete={signUp ? 'email' : 'username'} inputMode="email" {...email} />
      </Field>
      <Field label="Password" hint={passwordHint} error={errors.password}>
        <Input type="password" autoComplete={signUp ? 'new-password' : 'current-password'} {...password} />
      </Field>
    </>
  );
}
