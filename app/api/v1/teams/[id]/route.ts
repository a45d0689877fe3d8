import { updateTeamSchema } from '@/lib/schemas/team-budget';
import { requireUser } from '@/server/auth/require-user';
import { json, readBody, route } from '@/server/http/route';
import { deleteTeam } from '@/server/teams/lifecycle';
import { updateTeamBudget } from '@/server/teams/team-budget';
import { getTeam } from '@/server/teams/teams';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json(getTeam(user.id, id));
});

/** `{ tokenBudget: number | null }`: set or clear the team's token budget; a raise re-admits held work. */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, updateTeamSchema);
  return json(updateTeamBudget(user.id, id, input));
});

export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  deleteTeam(user.id, id);
  return new Response(null, { status: 204 });
});
