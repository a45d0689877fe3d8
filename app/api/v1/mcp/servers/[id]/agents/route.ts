import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { accountMcpServerUsage } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** The caller's agents that use one of the caller's own servers (what removing it changes); another id answers 404. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json(await accountMcpServerUsage(user.id, (await ctx.params).id), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
