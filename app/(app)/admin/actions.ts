'use server';

import { createAccountSchema, createInvitationSchema, type AdminActionResult, type AdminAccountView, type CreatedInvitation } from '@/lib/schemas/admin';
import { requireAdmin } from '@/server/admin/access';
import { createAccount, setAccountDisabled } from '@/server/admin/accounts';
import { createInvitation, revokeInvitation } from '@/server/auth/invitations';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';

/**
 * The admin page's mutations: the same server/ functions as /api/v1/admin/*, each resolving the admin itself. Their
 * arguments are checked as every action's are (server/http/action-input.ts): plain JSON within the depth limit, then
 * the route's schema; an id that is not a string is no id (not_found).
 * A non-admin gets the not_found answer a missing account or invitation gets, and nothing changes.
 */
async function asAdmin<T>(fn: (adminId: string) => T | Promise<T>): Promise<AdminActionResult<T>> {
  return toActionResult(async () => fn((await requireAdmin()).id));
}

export async function createAccountAction(input: unknown): Promise<AdminActionResult<AdminAccountView>> {
  return asAdmin(() => createAccount(actionInput(createAccountSchema, input)));
}

export async function createInvitationAction(input: unknown): Promise<AdminActionResult<CreatedInvitation>> {
  return asAdmin((adminId) => createInvitation(adminId, actionInput(createInvitationSchema, input)));
}

export async function revokeInvitationAction(id: unknown): Promise<AdminActionResult<null>> {
  return asAdmin(async () => {
    await revokeInvitation(actionId(id));
    return null;
  });
}

type DisabledState = Pick<AdminAccountView, 'id' | 'disabledAt'>;

/** Disable an account: its sessions and tokens stop working at once (not your own, not the last admin). */
export async function disableAccountAction(id: unknown): Promise<AdminActionResult<DisabledState>> {
  return asAdmin(async (adminId) => ({ id: actionId(id), disabledAt: await setAccountDisabled(adminId, actionId(id), true) }));
}

/** Re-enable an account: it can sign in again (its old sessions stay ended, its old tokens stay revoked). */
export async function enableAccountAction(id: unknown): Promise<AdminActionResult<DisabledState>> {
  return asAdmin(async (adminId) => ({ id: actionId(id), disabledAt: await setAccountDisabled(adminId, actionId(id), false) }));
}
