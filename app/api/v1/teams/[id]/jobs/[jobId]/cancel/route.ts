import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { cancelJob } from '@/server/teams/cancel';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; jobId: string }> };

export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, jobId } = await ctx.params;
  return json({ job: await cancelJob(user.id, id, jobId) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
