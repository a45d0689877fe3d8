'use server';

import crypto from 'node:crypto';
import type { ActionResult } from '@/lib/action-result';
import type { SendMentionsResponse } from '@/lib/mentions/types';
import { createConversationSchema, resumeSchema, sendMessageSchema } from '@/lib/schemas/conversation';
import { mentionSchema } from '@/lib/schemas/team';
import type { Conversation, RunResponse } from '@/lib/types/conversation';
import { deleteConversation } from '@/server/agents/conversation-delete';
import { createConversation, getConversation } from '@/server/agents/conversations';
import { cancel, resume, start } from '@/server/agents/runs';
import { conversationView, runView } from '@/server/agents/views';
import { requireUser } from '@/server/auth/require-user';
import { chatMessageInput } from '@/server/files/send';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';
import { sendMentions } from '@/server/teams/mentions';

/**
 * The conversation pages' mutations: the same server/agents and server/teams functions and schemas as
 * /api/v1/conversations/* and /api/v1/runs/:id/cancel, each resolving the signed-in person itself. Another owner's
 * conversation or run is not_found, and nothing changes.
 */

/** A new conversation with one of the person's agents. */
export async function createConversationAction(input: unknown): Promise<ActionResult<Conversation>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const { agentId } = actionInput(createConversationSchema, input);
    return conversationView(await createConversation(user.id, agentId));
  });
}

/** Delete a conversation with the hidden ones it delegated to (ADR 050); refused while a run works. */
export async function deleteConversationAction(conversationId: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteConversation(user.id, actionId(conversationId));
    return null;
  });
}

/** Send a message: a new run; the same idempotencyKey again answers the same run; conversation_busy while one works. */
export async function sendMessageAction(conversationId: unknown, input: unknown): Promise<ActionResult<RunResponse>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const id = actionId(conversationId);
    await getConversation(user.id, id);
    const { text, idempotencyKey, attachments } = actionInput(sendMessageSchema, input);
    const message = await chatMessageInput(user.id, id, text, attachments);
    const { run } = await start(user.id, id, message.input, { idempotencyKey: idempotencyKey ?? crypto.randomUUID() });
    await message.record(run.id);
    return { run: runView(run) };
  });
}

/** Answer the interrupt the newest run stopped at (an approval takes { approved, note? }). */
export async function resumeConversationAction(conversationId: unknown, input: unknown): Promise<ActionResult<RunResponse>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const id = actionId(conversationId);
    await getConversation(user.id, id);
    const { value, idempotencyKey } = actionInput(resumeSchema, input);
    const { run } = await resume(user.id, id, value, { idempotencyKey });
    return { run: runView(run) };
  });
}

/** Stop a run (checkpoints kept); a finished run is answered unchanged. */
export async function cancelRunAction(runId: unknown): Promise<ActionResult<RunResponse>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return { run: runView(await cancel(user.id, actionId(runId))) };
  });
}

/** Queue one request per @mentioned member; the same messageKey again answers the requests already queued. */
export async function sendMentionsAction(conversationId: unknown, input: unknown): Promise<ActionResult<SendMentionsResponse>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const { jobs } = await sendMentions(user.id, actionId(conversationId), actionInput(mentionSchema, input));
    return { jobs };
  });
}
