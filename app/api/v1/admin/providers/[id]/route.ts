import { updateProviderSchema } from '@/lib/schemas/providers';
import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { deleteProvider, providerRow, toProviderView, updateProvider } from '@/server/providers/store';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  refuseQuery(req);
  return json(toProviderView(await providerRow((await ctx.params).id)), { headers: { 'cache-control': 'no-store' } });
});

/** Edit the name, base URL or key (`apiKey: null` removes it); the slug stays, since agents' model strings name it. */
export const PATCH = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  const input = await readBody(req, updateProviderSchema);
  return json(await updateProvider((await ctx.params).id, input), { headers: { 'cache-control': 'no-store' } });
});

/** Remove a provider: its agents stay editable, their runs fail naming it. */
export const DELETE = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  await deleteProvider((await ctx.params).id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireAdmin);
