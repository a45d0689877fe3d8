import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { accountMcpServerTools } from '@/server/mcp/servers';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** A usable server's status and tools (its own or the deployment's); `?refresh=1` reads the server's list again. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req, ['refresh']);
  const refresh = new URL(req.url).searchParams.get('refresh') === '1';
  return json(await accountMcpServerTools(user.id, (await ctx.params).id, refresh), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
