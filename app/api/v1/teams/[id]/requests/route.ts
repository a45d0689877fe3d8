import { sendRequestSchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { sendRequest } from '@/server/teams/requests';

export const dynamic = 'force-dynamic';
type Ctx = { params: Promise<{ id: string }> };

export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, sendRequestSchema);
  const { jobs, created } = await sendRequest(user.id, id, input);
  return json({ jobs }, { status: created ? 201 : 200 });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
