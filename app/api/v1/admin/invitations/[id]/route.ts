import { requireAdmin } from '@/server/admin/access';
import { revokeInvitation } from '@/server/auth/invitations';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';

/** Revoke an unused invitation (409 when it was already used). */
export const DELETE = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  await requireAdmin(req);
  const { id } = await ctx.params;
  await revokeInvitation(id);
  return new Response(null, { status: 204 });
});

export const { GET, POST, PUT, PATCH, HEAD, OPTIONS } = otherMethods({ DELETE }, requireAdmin);
