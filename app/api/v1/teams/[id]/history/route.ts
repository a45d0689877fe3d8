import { historyQueryParams } from '@/lib/schemas/team-history';
import { requireUser } from '@/server/auth/require-user';
import { badRequest } from '@/server/http/errors';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { readHistory } from '@/server/teams/history';
import { requireTeam } from '@/server/teams/teams';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** The team's retained shared record, newest first; the same page read_team_history gives a member. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const team = await requireTeam(user.id, id);
  const parsed = historyQueryParams.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest('invalid_query', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`);
  }
  return json(await readHistory(team.id, parsed.data), { headers: { 'cache-control': 'no-store' } });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
