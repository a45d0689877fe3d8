import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { adminMcpServerUsage } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** The agents that use a deployment-wide server: the admin's own by name, every account's counted. */
export const GET = route(async (req, ctx: Ctx) => {
  const admin = await requireAdmin(req);
  refuseQuery(req);
  return json(await adminMcpServerUsage(admin.id, (await ctx.params).id), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireAdmin);
