import 'server-only';
import { historyQueryParams, type HistoryFilterInput } from '@/lib/schemas/team-history';
import { requireUser } from '@/server/auth/require-user';
import { badRequest } from '@/server/http/errors';
import { json, route } from '@/server/http/route';
import { requireTeam } from './teams';

type Ctx = { params: Promise<{ id: string }> };

/**
 * GET for a page of a team's shared record (history, results): the owner's team, the query read as the members'
 * tools read it (a bad parameter is 400 invalid_query, naming it), never cached — the record grows while read.
 */
export function teamRecordRoute(read: (teamId: string, filters: HistoryFilterInput) => Promise<unknown>) {
  return route(async (req, ctx: Ctx) => {
    const user = await requireUser(req);
    const { id } = await ctx.params;
    const team = await requireTeam(user.id, id);
    const parsed = historyQueryParams.safeParse(Object.fromEntries(new URL(req.url).searchParams));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      // An unknown parameter has no path: name it (not "query", which is one of this route's own parameters).
      if (issue?.code === 'unrecognized_keys') throw badRequest('invalid_query', `${issue.keys.join(', ')}: Unknown parameter`);
      throw badRequest('invalid_query', `${issue?.path.join('.') || 'query'}: ${issue?.message ?? 'invalid'}`);
    }
    return json(await read(team.id, parsed.data), { headers: { 'cache-control': 'no-store' } });
  });
}
