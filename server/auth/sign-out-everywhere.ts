import 'server-only';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';

/**
 * End every session of a user (session cookies carry the version they were issued under, so bumping it ends them
 * at their next request) and revoke every API token, in one write: after it, nothing issued before works.
 * Returns how many tokens were revoked.
 */
export async function signOutEverywhere(userId: string): Promise<{ revokedTokens: number }> {
  return writeTx(async (tx) => {
    await tx
      .update(schema.users)
      .set({ sessionVersion: sql`${schema.users.sessionVersion} + 1` })
      .where(eq(schema.users.id, userId));
    const revoked = await tx
      .update(schema.apiTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(schema.apiTokens.userId, userId), isNull(schema.apiTokens.revokedAt)))
      .returning({ id: schema.apiTokens.id });
    return { revokedTokens: revoked.length };
  });
}
