import { requireUser } from '@/server/auth/require-user';
import { notFound } from '@/server/http/errors';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { readResult } from '@/server/teams/history';
import { requireTeam } from '@/server/teams/teams';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string; jobId: string }> };

/** One request or receipt with its retained answer; the same record read_team_result gives a member. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id, jobId } = await ctx.params;
  const team = await requireTeam(user.id, id);
  const result = await readResult(team.id, jobId);
  if (!result) throw notFound('Request');
  return json(result, { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
