import crypto from 'node:crypto';
import { createApiToken } from '@/server/auth/tokens';
import { createUser, type Role } from '@/server/auth/users';
import { asc } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';

export const PASSWORD = 'correct horse battery';

/** A fresh account with an explicit role and an API token (tests never rely on "first account is admin"). */
export async function makeAccount(label: string, role: Role) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const user = await createUser({ email, password: PASSWORD, name: label }, { role });
  const { token } = await createApiToken(user.id, `${label} token`);
  return { ...user, token, auth: { authorization: `Bearer ${token}` } };
}

/** Everything an admin route or action could change, to prove a refused call changed nothing. Ordered by id: an
 * unordered select may list rows in another order after an unrelated update (Postgres). */
export async function adminStateSnapshot(): Promise<string> {
  const db = getDb();
  const t = schema.apiTokens;
  return JSON.stringify({
    users: await db.select().from(schema.users).orderBy(asc(schema.users.id)),
    invitations: await db.select().from(schema.invitations).orderBy(asc(schema.invitations.id)),
    tokens: await db.select({ id: t.id, revokedAt: t.revokedAt }).from(t).orderBy(asc(t.id)),
    providers: await db.select().from(schema.providers).orderBy(asc(schema.providers.id)),
    prices: await db.select().from(schema.modelPrices).orderBy(asc(schema.modelPrices.model)),
    mcpServers: await db.select().from(schema.mcpServers).orderBy(asc(schema.mcpServers.id)),
  });
}
