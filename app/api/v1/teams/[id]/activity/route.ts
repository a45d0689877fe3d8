import { activityQuerySchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { badRequest } from '@/server/http/errors';
import { json, route } from '@/server/http/route';
import { getActivity } from '@/server/teams/activity';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const params = Object.fromEntries(new URL(req.url).searchParams);
  const parsed = activityQuerySchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest('invalid_query', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`);
  }
  return json(getActivity(user.id, id, parsed.data), { headers: { 'cache-control': 'no-store' } });
});
