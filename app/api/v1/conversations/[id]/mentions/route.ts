import { mentionSchema } from '@/lib/schemas/team';
import { requireUser } from '@/server/auth/require-user';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';
import { mentionTargets, sendMentions } from '@/server/teams/mentions';
import { callerConversation, type ConversationRouteCtx as Ctx } from '@/server/agents/conversation-route';
import { refuseQuery } from '@/server/http/query';

export const dynamic = 'force-dynamic';

/** Members this conversation can @mention (members of the owner's ready teams, minus itself). */
export const GET = route(async (req, ctx: Ctx) => {
  const { user, id } = await callerConversation(req, ctx);
  refuseQuery(req);
  return json({ targets: await mentionTargets(user.id, id) });
});

export const POST = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  const input = await readBody(req, mentionSchema);
  const { jobs, created } = await sendMentions(user.id, id, input);
  return json({ jobs }, { status: created ? 201 : 200 });
});

export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST }, requireUser);
