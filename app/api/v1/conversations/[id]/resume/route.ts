import { resumeSchema } from '@/lib/schemas/conversation';
import { requireUser } from '@/server/auth/require-user';
import { callerConversation, type ConversationRouteCtx as Ctx } from '@/server/agents/conversation-route';
import { resume } from '@/server/agents/runs';
import { runView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';

/**
 * POST /api/v1/conversations/:id/resume { value, idempotencyKey } — answer the graph interrupt the newest run
 * stopped at (an approval takes { approved, note? }). 202 with the resume run; 409 when nothing is waiting.
 */
export const POST = route(async (req, ctx: Ctx) => {
  const { user, id } = await callerConversation(req, ctx);
  const { value, idempotencyKey } = await readBody(req, resumeSchema);
  const { run, created } = await resume(user.id, id, value, { idempotencyKey });
  return json({ run: runView(run) }, { status: created ? 202 : 200 });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
