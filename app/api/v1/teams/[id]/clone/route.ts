import { cloneTeamSchema } from '@/lib/schemas/team-settings';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { cloneTeam } from '@/server/teams/clone';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** `{ requestId, name? }`: a new team with this one's roster and goal and a fresh request capacity (201; 200 on a repeat). */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, cloneTeamSchema);
  const { team, created } = await cloneTeam(user.id, id, input);
  return json(team, { status: created ? 201 : 200 });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
