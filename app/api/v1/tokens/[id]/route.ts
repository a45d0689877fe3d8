import { requireUser } from '@/server/auth/require-user';
import { revokeApiToken } from '@/server/auth/tokens';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';

/** Revoke one of the caller's tokens; another user's token id answers 404 like a missing one. */
export const DELETE = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await revokeApiToken(user.id, id);
  return new Response(null, { status: 204 });
});

export const { GET, POST, PUT, PATCH, HEAD, OPTIONS } = otherMethods({ DELETE }, requireUser);
