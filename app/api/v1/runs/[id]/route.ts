import { requireUser } from '@/server/auth/require-user';
import { get } from '@/server/agents/runs';
import { runView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/runs/:id */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json({ run: runView(await get(user.id, id)) });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
