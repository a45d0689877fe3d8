import { respondSchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { respondToJob } from '@/server/teams/answers';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; jobId: string }> };

export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, jobId } = await ctx.params;
  const input = await readBody(req, respondSchema);
  return json({ job: await respondToJob(user.id, id, jobId, input) });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
