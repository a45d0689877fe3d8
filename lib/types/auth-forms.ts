/**
 * What the account forms show after their server action answered. They live here, not beside the actions in app/:
 * components import from app/ only its 'use server' modules, for their actions (docs/architecture.md).
 */

/** Sign-in and sign-up: a form-level message, field errors, and what was typed. */
export type AuthFormState = {
  message?: string;
  fields?: Record<string, string>;
  /** Everything typed except the password, so a failed attempt keeps it. */
  values?: { email?: string; name?: string };
};

/** Change password: a message or field errors. Passwords are never sent back. */
export type ChangePasswordState = { message?: string; fields?: Record<string, string> };
