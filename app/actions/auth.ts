'use server';

import { signOut } from '@/server/auth/config';
import { requireUser } from '@/server/auth/require-user';
import { signOutEverywhere } from '@/server/auth/sign-out-everywhere';

// Signing in and signing up are not server actions: the account pages ship no JavaScript, so their forms post to
// route handlers (app/(auth)/sign-in/submit, app/(auth)/sign-up/submit; ADR 062).

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
