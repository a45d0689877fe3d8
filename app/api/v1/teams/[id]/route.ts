import { teamSettingsSchema } from '@/lib/schemas/team-settings';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { deleteTeam } from '@/server/teams/lifecycle';
import { updateTeamSettings } from '@/server/teams/team-settings';
import { getTeam } from '@/server/teams/teams';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(await getTeam(user.id, id));
});

/**
 * `{ name?, goal?, tokenBudget? }` (at least one): rename, edit the goal (queued requests see it, admitted ones keep
 * theirs), set or clear (null) the token budget — a raise re-admits held work.
 */
export const PATCH = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, teamSettingsSchema);
  return json(await updateTeamSettings(user.id, id, input));
});

export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await deleteTeam(user.id, id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, OPTIONS } = otherMethods({ GET, PATCH, DELETE }, requireUser);
