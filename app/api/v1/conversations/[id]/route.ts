import { requireUser } from '@/server/auth/require-user';
import { getState } from '@/server/agents/runs';
import { conversationDetailView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/conversations/:id — the conversation, its messages and its newest run. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  return json(conversationDetailView(await getState(user.id, id)));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET }, requireUser);
