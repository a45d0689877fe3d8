import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { cancelAllJobs } from '@/server/teams/cancel-all';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** Cancel every unfinished job of the team in one step; each job answered as cancelling it alone would. */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json(await cancelAllJobs(user.id, id));
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
