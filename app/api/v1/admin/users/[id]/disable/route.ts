import { requireAdmin } from '@/server/admin/access';
import { setAccountDisabled } from '@/server/admin/accounts';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';

/** Disable an account: its sessions and tokens stop working at once. Not yourself, not the last admin. */
export const POST = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(req);
  const { id } = await ctx.params;
  return json({ id, disabledAt: await setAccountDisabled(admin.id, id, true) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireAdmin);
