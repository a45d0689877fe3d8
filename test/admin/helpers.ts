import crypto from 'node:crypto';
import { createApiToken } from '@/server/auth/tokens';
import { createUser, type Role } from '@/server/auth/users';
import { getDb, schema } from '@/server/db';

export const PASSWORD = 'correct horse battery';

/** A fresh account with an explicit role and an API token (tests never rely on "first account is admin"). */
export async function makeAccount(label: string, role: Role) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const user = await createUser({ email, password: PASSWORD, name: label }, { role });
  const { token } = createApiToken(user.id, `${label} token`);
  return { ...user, token, auth: { authorization: `Bearer ${token}` } };
}

/** Everything an admin route or action could change, to prove a refused call changed nothing. */
export function adminStateSnapshot(): string {
  const db = getDb();
  return JSON.stringify({
    users: db.select().from(schema.users).all(),
    invitations: db.select().from(schema.invitations).all(),
    tokens: db.select({ id: schema.apiTokens.id, revokedAt: schema.apiTokens.revokedAt }).from(schema.apiTokens).all(),
  });
}
