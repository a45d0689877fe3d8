import { requireUser } from '@/server/auth/require-user';
import { stillSignedIn } from '@/server/auth/still-signed-in';
import { otherMethods } from '@/server/http/method-not-allowed';
import { route } from '@/server/http/route';
import { parseLastEventId } from '@/server/push/event-stream';
import { teamEventStream } from '@/server/push/team-stream';
import { requireTeam } from '@/server/teams/teams';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

/** Live updates for one team workspace (text/event-stream): see docs/api.md "Event streams". */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  await requireTeam(user.id, id);
  return teamEventStream({
    accountId: user.id,
    teamId: id,
    readRevision: async () => (await requireTeam(user.id, id)).revision,
    lastEventId: parseLastEventId(req),
    signal: req.signal,
    request: req,
    signedIn: stillSignedIn(req, user.id),
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
