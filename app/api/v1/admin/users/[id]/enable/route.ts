import { requireAdmin } from '@/server/admin/access';
import { setAccountDisabled } from '@/server/admin/accounts';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';

/** Re-enable an account: it may sign in again and its tokens work again. */
export const POST = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(req);
  const { id } = await ctx.params;
  return json({ id, disabledAt: await setAccountDisabled(admin.id, id, false) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireAdmin);
