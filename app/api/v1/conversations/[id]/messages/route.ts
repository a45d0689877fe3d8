import crypto from 'node:crypto';
import { sendMessageSchema } from '@/lib/schemas/conversation';
import { requireUser } from '@/server/auth/require-user';
import { callerConversation, type ConversationRouteCtx as Ctx } from '@/server/agents/conversation-route';
import { start } from '@/server/agents/runs';
import { chatMessageInput } from '@/server/files/send';
import { runView } from '@/server/agents/views';
import { otherMethods } from '@/server/http/method-not-allowed';
import { json, readBody, route } from '@/server/http/route';

/**
 * POST /api/v1/conversations/:id/messages { text, idempotencyKey?, attachments? } — 202 with the new run; a repeated key
 * answers 200 with the same run; 409 while another run is active.
 */
export const POST = route(async (req, ctx: Ctx) => {
  const { user, id } = await callerConversation(req, ctx);
  const { text, idempotencyKey, attachments } = await readBody(req, sendMessageSchema);
  const message = await chatMessageInput(user.id, id, text, attachments);
  const { run, created } = await start(user.id, id, message.input, { idempotencyKey: idempotencyKey ?? crypto.randomUUID() });
  await message.record(run.id);
  return json({ run: runView(run) }, { status: created ? 202 : 200 });
});

export const { GET, PUT, PATCH, DELETE, HEAD, OPTIONS } = otherMethods({ POST }, requireUser);
