import { requireUser } from '@/server/auth/require-user';
import { json, route } from '@/server/http/route';
import { listStateForApi } from '@/server/teams/state';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** The team's public state, archived entries included: `{ revision, entries }`. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json(listStateForApi(user.id, id));
});
