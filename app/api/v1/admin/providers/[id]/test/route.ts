import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { testProvider } from '@/server/providers/discovery';

/** Test connection: one model-list call (5 s limit); the latency and model count, or the error. Refreshes the cached list. */
export const POST = route(async (req, ctx: { params: Promise<{ id: string }> }) => {
  await requireAdmin(req);
  return json(await testProvider((await ctx.params).id), { headers: { 'cache-control': 'no-store' } });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireAdmin);
