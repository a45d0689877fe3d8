import { createTeamSchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { createTeam, listTeams } from '@/server/teams/teams';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';

export const GET = route(async (req) => {
  const user = await requireUser(req);
  refuseQuery(req);
  return json({ teams: await listTeams(user.id) });
});

export const POST = route(async (req) => {
  const user = await requireUser(req);
  const input = await readBody(req, createTeamSchema);
  const { team, created } = await createTeam(user.id, input);
  return json(team, { status: created ? 201 : 200 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
