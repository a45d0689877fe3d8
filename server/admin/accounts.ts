import 'server-only';
import { and, asc, count, eq, isNull, ne } from 'drizzle-orm';
import type { AccountUsage, AdminAccountView, CreateAccountData } from '@/lib/schemas/admin';
import { revokeAllApiTokens } from '@/server/auth/tokens';
import { bumpSessionVersion, createUser } from '@/server/auth/users';
import { getDb, schema, writeTx } from '@/server/db';
import { conflict, notFound } from '@/server/http/errors';
import { announceCredentialsChanged } from '@/server/push/bus';
import { noUsage, usageByAccount } from './usage';

/** Every account of the instance, oldest first, with its usage. Only admins reach this (server/admin/access.ts). */
export async function listAccounts(): Promise<AdminAccountView[]> {
  const usage = await usageByAccount();
  const users = await getDb().select().from(schema.users).orderBy(asc(schema.users.createdAt), asc(schema.users.id));
  return users.map((user) => accountView(user, usage.get(user.id) ?? noUsage()));
}

/** An admin creates an account with an initial password (a member unless the role says admin); sign-up being
 * closed doesn't matter here. */
export async function createAccount(input: CreateAccountData): Promise<AdminAccountView> {
  const { id } = await createUser(input, { role: input.role ?? 'member' });
  const [user] = await getDb().select().from(schema.users).where(eq(schema.users.id, id));
  return accountView(user!, noUsage());
}

function accountView(user: typeof schema.users.$inferSelect, usage: AccountUsage): AdminAccountView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    disabledAt: user.disabledAt ? user.disabledAt.toISOString() : null,
    createdAt: user.createdAt.toISOString(),
    usage,
  };
}

/**
 * Disable or re-enable an account. Disabling stamps disabledAt and bumps the session version in one transaction:
 * requireUser refuses the account's cookies and tokens from the next request on, and sign-in refuses it; a
 * re-enabled account signs in afresh (its old sessions stay ended). Disabling revokes the account's API tokens in the
 * same transaction, so re-enabling it does not bring them back (ADR 041): the person makes new ones.
 * An admin can't disable themselves, nor the last enabled admin. An unknown id answers 404.
 */
export async function setAccountDisabled(actorId: string, targetId: string, disabled: boolean): Promise<AdminAccountView['disabledAt']> {
  const disabledAt = await writeTx(async (tx) => {
    const u = schema.users;
    const [target] = await tx.select().from(u).where(eq(u.id, targetId));
    if (!target) throw notFound('Account');
    if (!disabled) {
      if (target.disabledAt) await tx.update(u).set({ disabledAt: null }).where(eq(u.id, targetId));
      return null;
    }
    if (target.disabledAt) return target.disabledAt.toISOString();
    if (targetId === actorId) throw conflict('cannot_disable_self', 'You cannot disable your own account');
    if (target.role === 'admin') {
      const [others] = await tx
        .select({ n: count() })
        .from(u)
        .where(and(eq(u.role, 'admin'), isNull(u.disabledAt), ne(u.id, targetId)));
      if ((others?.n ?? 0) === 0) throw conflict('last_admin', 'The last admin cannot be disabled');
    }
    const at = new Date();
    await tx.update(u).set({ disabledAt: at }).where(eq(u.id, targetId));
    await bumpSessionVersion(targetId, tx);
    await revokeAllApiTokens(tx, targetId, at);
    return at.toISOString();
  });
  // A disabled account's open streams close now (ADR 040).
  if (disabledAt) announceCredentialsChanged(targetId);
  return disabledAt;
}
