import 'server-only';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { schema, writeTx } from '@/server/db';
import { announceCredentialsChanged } from '@/server/push/bus';

/**
 * End every session of a user (session cookies carry the version they were issued under, so bumping it ends them
 * at their next request) and revoke every API token, in one write: after it, nothing issued before works.
 * Returns how many tokens were revoked. The account's open event streams close once committed (ADR 040).
 */
export async function signOutEverywhere(userId: string): Promise<{ revokedTokens: number }> {
  const result = await writeTx(async (tx) => {
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
  announceCredentialsChanged(userId);
  return result;
}
