import { requireAdmin } from '@/server/admin/access';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { adminMcpServerTools } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** A deployment-wide server's status and tools; `?refresh=1` reads the server's list again. */
export const GET = route(async (req, ctx: Ctx) => {
  await requireAdmin(req);
  refuseQuery(req, ['refresh']);
  const refresh = new URL(req.url).searchParams.get('refresh') === '1';
  return json(await adminMcpServerTools((await ctx.params).id, refresh), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireAdmin);
