import 'server-only';
import { eq } from 'drizzle-orm';
import { requireUser } from '@/server/auth/require-user';
import type { PublicUser } from '@/server/auth/users';
import { getDb, schema } from '@/server/db';
import type { ActionResult } from '@/lib/action-result';
import { toActionResult } from '@/server/http/action-result';
import { notFound } from '@/server/http/errors';

/** Whether this account is an (enabled) admin of the instance, read from the database on every call. */
export async function isAdmin(userId: string): Promise<boolean> {
  const [row] = await getDb()
    .select({ role: schema.users.role, disabledAt: schema.users.disabledAt })
    .from(schema.users)
    .where(eq(schema.users.id, userId));
  return row?.role === 'admin' && row.disabledAt === null;
}

/**
 * The signed-in admin, for every admin route handler and action. Signed out → 401 like any route; signed in but not
 * an admin → 404, the answer a path that doesn't exist gives, so members get no hint that admin features exist.
 */
export async function requireAdmin(req?: Request): Promise<PublicUser> {
  const user = await requireUser(req);
  if (!(await isAdmin(user.id))) throw notFound();
  return user;
}

/**
 * An admin server action's body, run as the signed-in admin; its value or refusal comes back as every action's
 * result (ADR 018). A member gets not_found, as for a missing account, before the body runs.
 */
export async function asAdmin<T>(body: (admin: PublicUser) => T | Promise<T>): Promise<ActionResult<T>> {
  return toActionResult(async () => body(await requireAdmin()));
}
