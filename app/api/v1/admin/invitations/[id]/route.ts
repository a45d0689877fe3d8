import { requireAdmin } from '@/server/admin/access';
import { revokeInvitation } from '@/server/auth/invitations';
import { route } from '@/server/http/route';

/** Revoke an unused invitation (409 when it was already used). */
export const DELETE = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  await requireAdmin(req);
  const { id } = await ctx.params;
  await revokeInvitation(id);
  return new Response(null, { status: 204 });
});
