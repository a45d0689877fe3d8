import 'server-only';
import { unauthorized } from '@/server/http/errors';
import { userForToken } from './tokens';
import { findUserById, type PublicUser } from './users';

/**
 * Resolve the signed-in user for a route handler or server action, or throw 401.
 * A Bearer token wins when present; otherwise the next-auth session cookie is checked (and its session
 * version, so "sign out everywhere" takes effect at once). Every handler calls this itself.
 */
export async function requireUser(req?: Request): Promise<PublicUser> {
  const user = await currentUser(req);
  if (!user) throw unauthorized();
  return user;
}

export async function currentUser(req?: Request): Promise<PublicUser | null> {
  const header = req ? req.headers.get('authorization') : (await import('next/headers')).headers().then((h) => h.get('authorization'));
  const authorization = await header;
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    return match?.[1] ? userForToken(match[1]) : null;
  }
  const { auth } = await import('./config');
  const session = await auth();
  const id = session?.user?.id;
  if (!id) return null;
  const user = findUserById(id);
  return user ? { id: user.id, email: user.email, name: user.name } : null;
}
