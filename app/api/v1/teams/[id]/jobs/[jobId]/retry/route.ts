import { retryJobSchema } from '@/lib/schemas/team-steer';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { retryJob } from '@/server/teams/retry';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; jobId: string }> };

/** Retry a failed or cancelled request (optionally with another member): 201 new, 200 the same requestId again. */
export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id, jobId } = await ctx.params;
  const input = await readBody(req, retryJobSchema);
  const { job, created } = await retryJob(user.id, id, jobId, input);
  return json({ job }, { status: created ? 201 : 200 });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
