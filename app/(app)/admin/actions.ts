'use server';

import { createAccountSchema, createInvitationSchema, type AdminActionResult, type AdminAccountView, type CreatedInvitation } from '@/lib/schemas/admin';
import { requireAdmin } from '@/server/admin/access';
import { createAccount, setAccountDisabled } from '@/server/admin/accounts';
import { createInvitation, revokeInvitation } from '@/server/auth/invitations';
import { toActionResult } from '@/server/http/action-result';
import { parseOrThrow } from '@/server/http/validation';

/**
 * The admin page's mutations: the same server/ functions as /api/v1/admin/*, each resolving the admin itself.
 * A non-admin gets the not_found answer a missing account or invitation gets, and nothing changes.
 */
async function asAdmin<T>(fn: (adminId: string) => T | Promise<T>): Promise<AdminActionResult<T>> {
  return toActionResult(async () => fn((await requireAdmin()).id));
}

export async function createAccountAction(input: unknown): Promise<AdminActionResult<AdminAccountView>> {
  return asAdmin(() => createAccount(parseOrThrow(createAccountSchema, input)));
}

export async function createInvitationAction(input: unknown): Promise<AdminActionResult<CreatedInvitation>> {
  return asAdmin((adminId) => createInvitation(adminId, parseOrThrow(createInvitationSchema, input)));
}

export async function revokeInvitationAction(id: unknown): Promise<AdminActionResult<null>> {
  return asAdmin(async () => {
    await revokeInvitation(typeof id === 'string' ? id : '');
    return null;
  });
}

type DisabledState = Pick<AdminAccountView, 'id' | 'disabledAt'>;

/** Disable an account: its sessions and tokens stop working at once (not your own, not the last admin). */
export async function disableAccountAction(id: unknown): Promise<AdminActionResult<DisabledState>> {
  return asAdmin(async (adminId) => ({ id: String(id), disabledAt: await setAccountDisabled(adminId, typeof id === 'string' ? id : '', true) }));
}

/** Re-enable an account: it can sign in again and its tokens work again (its old sessions stay ended). */
export async function enableAccountAction(id: unknown): Promise<AdminActionResult<DisabledState>> {
  return asAdmin(async (adminId) => ({ id: String(id), disabledAt: await setAccountDisabled(adminId, typeof id === 'string' ? id : '', false) }));
}
