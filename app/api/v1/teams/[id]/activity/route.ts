import { activityQuerySchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { parseOrThrow } from '@/server/http/validation';
import { getActivity, getActivityChanges } from '@/server/teams/activity';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const query = parseOrThrow(activityQuerySchema, Object.fromEntries(new URL(req.url).searchParams));
  const body = query.since !== undefined ? await getActivityChanges(user.id, id, query.since, query) : await getActivity(user.id, id, query);
  return json(body, { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
