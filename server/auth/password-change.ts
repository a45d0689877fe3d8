import 'server-only';
import { and, eq, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { conflict } from '@/server/http/errors';
import { confirmPassword } from './confirm-password';
import { hashPassword } from './passwords';

/**
 * Change a user's password after checking the current one (a wrong one counts as a failed sign-in), and bump
 * the session version in the same write, so every session issued before (other browsers, and the caller's own
 * cookie) ends. API tokens are not touched: "Sign out everywhere" revokes those.
 * Returns the new session version (the Settings action signs its own browser in again under it).
 */
export async function changePassword(
  userId: string,
  input: { currentPassword: string; newPassword: string },
  address: string,
): Promise<{ sessionVersion: number }> {
  const user = await confirmPassword(userId, input.currentPassword, address, 'currentPassword');
  const passwordHash = await hashPassword(input.newPassword);
  return writeTx(async (tx) => {
    // Only over the hash that was just confirmed: when two changes race, the first wins and this one is refused.
    const [row] = await tx
      .update(schema.users)
      .set({ passwordHash, sessionVersion: sql`${schema.users.sessionVersion} + 1` })
      .where(and(eq(schema.users.id, userId), eq(schema.users.passwordHash, user.passwordHash)))
      .returning({ sessionVersion: schema.users.sessionVersion });
    if (!row) throw conflict('password_changed', 'The password was changed at the same time; sign in again');
    return row;
  });
}
