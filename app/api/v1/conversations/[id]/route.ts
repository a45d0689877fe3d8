import { requireUser } from '@/server/auth/require-user';
import { deleteConversation } from '@/server/agents/conversation-delete';
import { getState } from '@/server/agents/runs';
import { conversationDetailView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, route } from '@/server/http/route';
import { refuseQuery } from '@/server/http/query';

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/v1/conversations/:id — the conversation, its messages and its newest run. */
export const GET = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  refuseQuery(req);
  const { id } = await ctx.params;
  return json(conversationDetailView(await getState(user.id, id)));
});

/**
 * DELETE /api/v1/conversations/:id — the conversation and the hidden conversations its runs delegated to (ADR 050).
 * 409 `conversation_busy` while a run works, `conversation_in_team` for a team member's, `delegated_conversation`
 * for a hidden one; a read-only token is refused by requireUser.
 */
export const DELETE = route(async (req, ctx: Ctx) => {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await deleteConversation(user.id, id);
  return new Response(null, { status: 204 });
});

export const { POST, PUT, PATCH, OPTIONS } = otherMethods({ GET, DELETE }, requireUser);
