import 'server-only';
import { requireUser } from '@/server/auth/require-user';
import type { PublicUser } from '@/server/auth/users';
import { getConversation } from './conversations';

/** The params of a route under /api/v1/conversations/:id. */
export type ConversationRouteCtx = { params: Promise<{ id: string }> };

/**
 * What a conversation route works on: the signed-in caller (session or token: 401 otherwise) and the id of a
 * conversation that is theirs — another owner's, or a missing one, is the same 404, checked before the body is read.
 */
export async function callerConversation(req: Request, ctx: ConversationRouteCtx): Promise<{ user: PublicUser; id: string }> {
  const user = await requireUser(req);
  const { id } = await ctx.params;
  await getConversation(user.id, id);
  return { user, id };
}
