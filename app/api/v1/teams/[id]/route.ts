import { requireUser } from '@/server/auth/require-user';
import { json, route } from '@/server/http/route';
import { deleteTeam } from '@/server/teams/lifecycle';
import { getTeam } from '@/server/teams/teams';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json(getTeam(user.id, id));
});

export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  deleteTeam(user.id, id);
  return new Response(null, { status: 204 });
});
