/**
 * What the account forms show after their server action answered. They live here, not beside the actions in app/,
 * because the form components render them and components never import app/ (docs/architecture.md).
 */

/** Sign-in and sign-up: a form-level message, field errors, and what was typed. */
export type AuthFormState = {
  message?: string;
  fields?: Record<string, string>;
  /** Everything typed except the password, so a failed attempt keeps it. */
  values?: { email?: string; name?: string };
};

/** A sign-in or sign-up server action as its form calls it (React's useActionState). */
export type AuthFormAction = (prev: AuthFormState, formData: FormData) => Promise<AuthFormState>;

/** Change password: a message or field errors. Passwords are never sent back. */
export type ChangePasswordState = { message?: string; fields?: Record<string, string> };
