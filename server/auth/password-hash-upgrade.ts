import 'server-only';
import { and, eq } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { hashPassword } from './passwords';

/**
 * Replace a user's stored hash (an old bcrypt one, or scrypt with older parameters) by one made with today's
 * parameters, once the password is known to match. Only if the stored hash is still the one that was checked: a
 * password changed in the meantime is never overwritten by the old password. Returns the new hash, or null.
 */
export async function upgradePasswordHash(userId: string, checkedHash: string, password: string): Promise<string | null> {
  const passwordHash = await hashPassword(password);
  const changed = await writeTx(async (tx) =>
    tx
      .update(schema.users)
      .set({ passwordHash })
      .where(and(eq(schema.users.id, userId), eq(schema.users.passwordHash, checkedHash)))
      .returning({ id: schema.users.id }),
  );
  return changed.length === 1 ? passwordHash : null;
}
