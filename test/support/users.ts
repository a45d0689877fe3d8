import crypto from 'node:crypto';
import { createUser } from '@/server/auth/users';
import { createApiToken } from '@/server/auth/tokens';

/** A fresh user with an API token, for tests that act through the HTTP layer. */
export async function makeUser(label = 'user') {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const user = await createUser({ email, password: 'correct horse battery', name: label });
  const { token } = await createApiToken(user.id, `${label} token`);
  return { ...user, token, auth: { authorization: `Bearer ${token}` } };
}
