'use server';

import { AuthError } from 'next-auth';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { ActionResult } from '@/lib/action-result';
import { changePasswordFormSchema, createTokenSchema } from '@/lib/schemas/auth';
import type { CreatedApiToken } from '@/lib/types/api-token';
import type { ChangePasswordState } from '@/lib/types/auth-forms';
import { clientAddress } from '@/server/auth/client-address';
import { signIn } from '@/server/auth/config';
import { confirmPassword } from '@/server/auth/confirm-password';
import { changePassword } from '@/server/auth/password-change';
import { requireCaller, requireUser } from '@/server/auth/require-user';
import { createApiToken, revokeApiToken, tokenExpiry, tokenView } from '@/server/auth/tokens';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { AppError } from '@/server/http/errors';
import { zodFields } from '@/server/http/validation';

/** Where a successful change lands: Settings, saying so. */
const PASSWORD_CHANGED_PATH = '/settings?password=changed';

const text = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value : '');

/**
 * Change the signed-in person's password (the current one is checked, and a wrong one counts as a failed
 * sign-in). Every other session ends (the session version is bumped); this browser is signed in again under the
 * new version with the new password, so it stays signed in, and lands on Settings with a confirmation.
 */
export async function changePasswordAction(_prev: ChangePasswordState, formData: FormData): Promise<ChangePasswordState> {
  const caller = await requireCaller();
  const { user } = caller;
  const parsed = changePasswordFormSchema.safeParse({
    currentPassword: text(formData.get('currentPassword')),
    newPassword: text(formData.get('newPassword')),
    confirmPassword: text(formData.get('confirmPassword')),
  });
  if (!parsed.success) return { fields: zodFields(parsed.error) };

  const address = clientAddress(await headers());
  try {
    await changePassword(caller, parsed.data, address);
  } catch (err) {
    if (err instanceof AppError && err.fields) return { fields: err.fields };
    if (err instanceof AppError && (err.status === 429 || err.status === 409)) return { message: err.message };
    throw err;
  }

  try {
    await signIn('credentials', { email: user.email, password: parsed.data.newPassword, redirect: false, redirectTo: '/settings' });
  } catch (err) {
    if (!(err instanceof AuthError)) throw err;
    // The password did change; only re-issuing this browser's session failed (e.g. rate limited): sign in again.
    redirect('/sign-in?callbackUrl=%2Fsettings');
  }
  // Re-issuing the session re-renders the page; the confirmation travels in the URL so it survives that.
  redirect(PASSWORD_CHANGED_PATH);
}

/**
 * Create an API token (as POST /api/v1/tokens): the password is asked again (wrong_password names `password` and
 * counts as a failed sign-in from this address); the answer is the only time the plain token is shown.
 */
export async function createTokenAction(input: unknown): Promise<ActionResult<CreatedApiToken>> {
  return toActionResult(async () => {
    const { user, sessionVersion } = await requireCaller();
    const { name, expiresInDays, scope, password } = actionInput(createTokenSchema, input);
    await confirmPassword(user.id, password, clientAddress(await headers()), 'password', sessionVersion);
    const { token, info } = await createApiToken(user.id, name, { expiresAt: tokenExpiry(expiresInDays), scope, sessionVersion });
    return { ...tokenView(info), token };
  });
}

/** Revoke one of the person's tokens; another person's token id is not_found like a missing one. */
export async function revokeTokenAction(id: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await revokeApiToken(user.id, actionId(id));
    return null;
  });
}
