import 'server-only';
import { AuthError } from 'next-auth';
import { AUTH_MESSAGES, safeCallbackPath, signInSchema, signUpSchema } from '@/lib/schemas/auth';
import type { AuthFormState } from '@/lib/types/auth-forms';
import { AppError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';
import { signIn } from './config';
import { signInBlock, tooManySignInsMessage } from './rate-limit';
import { registerAccount } from './registration';

/**
 * What the sign-in and sign-up forms do with what was typed (their route handlers, app/(auth)/…/submit, post here
 * through server/auth/form-post.ts). Either the person is signed in (next-auth's session cookie is set on the
 * answer) and goes to `destination`, or the attempt is refused with the state the form shows again.
 */
export type FormOutcome = { destination: string } | { refused: AuthFormState };

export const AFTER_SIGN_IN = '/agents';
const SIGN_UP_REFUSALS = new Set(['signup_closed', 'invitation_invalid', 'rate_limited']);

const text = (fields: URLSearchParams, name: string) => fields.get(name) ?? '';

/** Sign in with email and password; on success go to the callback path (same-origin only) or /agents. */
export async function submitSignIn(fields: URLSearchParams, address: string): Promise<FormOutcome> {
  const input = { email: text(fields, 'email'), password: text(fields, 'password') };
  const values = { email: input.email };
  const parsed = signInSchema.safeParse(input);
  if (!parsed.success) return { refused: { fields: zodFields(parsed.error), values } };

  const block = await signInBlock(parsed.data.email, address);
  if (block) return { refused: { message: tooManySignInsMessage(block.retryAfterSeconds), values } };

  const destination = safeCallbackPath(fields.get('callbackUrl')) ?? AFTER_SIGN_IN;
  const failure = await credentialsSignIn(parsed.data.email, parsed.data.password, destination, address);
  if (failure) return { refused: { message: failure, values } };
  return { destination };
}

/**
 * Create an account, sign it in and land on /agents. Open for the instance's first account (its admin), with
 * ALLOW_SIGNUP=true, or with an invitation code (the form's hidden `invite` field); limited per client address.
 */
export async function submitSignUp(fields: URLSearchParams, address: string): Promise<FormOutcome> {
  const input = { email: text(fields, 'email'), password: text(fields, 'password'), name: text(fields, 'name') };
  const values = { email: input.email, name: input.name };
  const parsed = signUpSchema.safeParse(input);
  if (!parsed.success) return { refused: { fields: zodFields(parsed.error), values } };

  try {
    await registerAccount({ ...parsed.data, invite: text(fields, 'invite') || null }, address);
  } catch (err) {
    if (err instanceof AppError && err.code === 'email_taken') return { refused: { fields: { email: err.message }, values } };
    // Closed sign-up, a spent invitation, too many sign-ups from this address: say so above the form.
    if (err instanceof AppError && SIGN_UP_REFUSALS.has(err.code)) return { refused: { message: err.message, values } };
    throw err;
  }
  const failure = await credentialsSignIn(parsed.data.email, parsed.data.password, AFTER_SIGN_IN, address);
  if (failure) return { refused: { message: `Your account was created, but signing in failed: ${failure}`, values } };
  return { destination: AFTER_SIGN_IN };
}

/**
 * next-auth's credentials sign-in without its redirect; sets the session cookie on success (Next adds the cookies a
 * route handler set to its answer). Returns null on success, else the message to show (never which of email or
 * password was wrong).
 */
async function credentialsSignIn(email: string, password: string, redirectTo: string, address: string): Promise<string | null> {
  try {
    await signIn('credentials', { email, password, redirect: false, redirectTo });
    return null;
  } catch (err) {
    if (!(err instanceof AuthError) || err.type !== 'CredentialsSignin') throw err;
    const code = (err as AuthError & { code?: string }).code;
    if (code === 'rate_limited') return tooManySignInsMessage((await signInBlock(email, address))?.retryAfterSeconds ?? 60);
    return AUTH_MESSAGES.invalidCredentials;
  }
}
