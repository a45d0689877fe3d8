'use server';

import type { ActionResult } from '@/lib/action-result';
import { createAccountSchema, createInvitationSchema, type AdminAccountView, type CreatedInvitation } from '@/lib/schemas/admin';
import { asAdmin } from '@/server/admin/access';
import { createAccount, setAccountDisabled } from '@/server/admin/accounts';
import { createInvitation, revokeInvitation } from '@/server/auth/invitations';
import { actionId, actionInput } from '@/server/http/action-input';

/**
 * The admin page's account and invitation mutations: the same server/ functions as /api/v1/admin/*, each resolving
 * the admin itself. Their arguments are checked as every action's are (server/http/action-input.ts): plain JSON
 * within the depth limit, then the route's schema; an id that is not a string is no id (not_found).
 * A non-admin gets the not_found answer a missing account or invitation gets, and nothing changes.
 */

export async function createAccountAction(input: unknown): Promise<ActionResult<AdminAccountView>> {
  return asAdmin(() => createAccount(actionInput(createAccountSchema, input)));
}

export async function createInvitationAction(input: unknown): Promise<ActionResult<CreatedInvitation>> {
  return asAdmin((admin) => createInvitation(admin.id, actionInput(createInvitationSchema, input)));
}

export async function revokeInvitationAction(id: unknown): Promise<ActionResult<null>> {
  return asAdmin(async () => {
    await revokeInvitation(actionId(id));
    return null;
  });
}

type DisabledState = Pick<AdminAccountView, 'id' | 'disabledAt'>;

/** Disable an account: its sessions and tokens stop working at once (not your own, not the last admin). */
export async function disableAccountAction(id: unknown): Promise<ActionResult<DisabledState>> {
  return asAdmin(async (admin) => ({ id: actionId(id), disabledAt: await setAccountDisabled(admin.id, actionId(id), true) }));
}

/** Re-enable an account: it can sign in again (its old sessions stay ended, its old tokens stay revoked). */
export async function enableAccountAction(id: unknown): Promise<ActionResult<DisabledState>> {
  return asAdmin(async (admin) => ({ id: actionId(id), disabledAt: await setAccountDisabled(admin.id, actionId(id), false) }));
}
