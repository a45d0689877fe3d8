'use server';

import { AuthError } from 'next-auth';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { AUTH_MESSAGES, safeCallbackPath, signInSchema, signUpSchema } from '@/lib/schemas/auth';
import type { AuthFormState } from '@/lib/types/auth-forms';
import { signIn, signOut } from '@/server/auth/config';
import { clientAddress, signInBlock, tooManySignInsMessage } from '@/server/auth/rate-limit';
import { requireUser } from '@/server/auth/require-user';
import { signOutEverywhere } from '@/server/auth/sign-out-everywhere';
import { registerAccount } from '@/server/auth/registration';
import { AppError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';


const AFTER_SIGN_IN = '/agents';
const SIGN_UP_REFUSALS = new Set(['signup_closed', 'invitation_invalid', 'rate_limited']);

const text = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value : '');

/** Sign in with email and password; on success go to the callback path (same-origin only) or /agents. */
export async function signInAction(_prev: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const input = { email: text(formData.get('email')), password: text(formData.get('password')) };
  const values = { email: input.email };
  const parsed = signInSchema.safeParse(input);
  if (!parsed.success) return { fields: zodFields(parsed.error), values };

  const address = clientAddress(await headers());
  const block = await signInBlock(parsed.data.email, address);
  if (block) return { message: tooManySignInsMessage(block.retryAfterSeconds), values };

  const destination = safeCallbackPath(formData.get('callbackUrl')) ?? AFTER_SIGN_IN;
  const failure = await credentialsSignIn(parsed.data.email, parsed.data.password, destination, address);
  if (failure) return { message: failure, values };
  redirect(destination);
}

/**
 * Create an account, sign it in and land on /agents. Open for the instance's first account (its admin), with
 * ALLOW_SIGNUP=true, or with an invitation code (the form's hidden `invite` field); limited per client address.
 */
export async function signUpAction(_prev: AuthFormState, formData: FormData): Promise<AuthFormState> {
  const input = { email: text(formData.get('email')), password: text(formData.get('password')), name: text(formData.get('name')) };
  const values = { email: input.email, name: input.name };
  const parsed = signUpSchema.safeParse(input);
  if (!parsed.success) return { fields: zodFields(parsed.error), values };

  try {
    await registerAccount({ ...parsed.data, invite: text(formData.get('invite')) || null }, clientAddress(await headers()));
  } catch (err) {
    if (err instanceof AppError && err.code === 'email_taken') return { fields: { email: err.message }, values };
    // Closed sign-up, a spent invitation, too many sign-ups from this address: say so above the form.
    if (err instanceof AppError && SIGN_UP_REFUSALS.has(err.code)) return { message: err.message, values };
    throw err;
  }
  const failure = await credentialsSignIn(parsed.data.email, parsed.data.password, AFTER_SIGN_IN, clientAddress(await headers()));
  if (failure) return { message: `Your account was created, but signing in failed: ${failure}`, values };
  redirect(AFTER_SIGN_IN);
}

/** End this browser's session and go to the sign-in page. Works as a plain form action. */
export async function signOutAction(_formData?: FormData): Promise<void> {
  await signOut({ redirectTo: '/sign-in' });
}

/** End every session of the signed-in user (all browsers) and revoke all their API tokens, then sign this one out. */
export async function signOutEverywhereAction(_formData?: FormData): Promise<void> {
  const user = await requireUser();
  await signOutEverywhere(user.id);
  await signOut({ redirectTo: '/sign-in' });
}

/**
 * next-auth's credentials sign-in without its redirect; sets the session cookie on success.
 * Returns null on success, else the message to show (never which of email or password was wrong).
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
