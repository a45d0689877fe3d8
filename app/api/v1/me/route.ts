import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

/** The user the request authenticates as (session cookie or Bearer token). */
export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json({ user });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
