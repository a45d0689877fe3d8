import 'server-only';
import { and, eq, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { announceCredentialsChanged } from '@/server/push/bus';
import { confirmPassword, sessionsEnded } from './confirm-password';
import { hashPassword } from './passwords';
import { revokeAllApiTokens } from './tokens';
import type { Caller } from './require-user';

/**
 * Change a user's password after checking the current one (a wrong one counts as a failed sign-in), and bump
 * the session version in the same write, so every session issued before (other browsers, and the caller's own
 * cookie) ends, and revoke every API token of the account in that same write (ADR 041): a token made before the
 * change must not authenticate after it.
 *
 * Two changes racing (two tabs): the first to write wins; the other is refused with 409 `password_changed`
 * whenever it was authenticated before the winner wrote, whether its password check ran before that write or
 * after it (then the typed password was right when the request came, so it is not "wrong", nor counted).
 * Returns the new session version (the Settings action signs its own browser in again under it).
 */
export async function changePassword(
  caller: Caller,
  input: { currentPassword: string; newPassword: string },
  address: string,
): Promise<{ sessionVersion: number }> {
  const userId = caller.user.id;
  const user = await confirmPassword(userId, input.currentPassword, address, 'currentPassword', caller.sessionVersion);
  const passwordHash = await hashPassword(input.newPassword);
  const changed = await writeTx(async (tx) => {
    // Only over the hash just confirmed and the caller's session version: a change or sign-out that committed since
    // leaves no row to update.
    const [row] = await tx
      .update(schema.users)
      .set({ passwordHash, sessionVersion: sql`${schema.users.sessionVersion} + 1` })
      .where(
        and(
          eq(schema.users.id, userId),
          eq(schema.users.passwordHash, user.passwordHash),
          eq(schema.users.sessionVersion, caller.sessionVersion),
        ),
      )
      .returning({ sessionVersion: schema.users.sessionVersion });
    if (!row) throw sessionsEnded();
    await revokeAllApiTokens(tx, userId);
    return row;
  });
  // Streams opened with an ended session close now (ADR 040).
  announceCredentialsChanged(userId);
  return changed;
}
