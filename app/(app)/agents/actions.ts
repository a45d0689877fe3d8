'use server';

import type { ActionResult } from '@/lib/action-result';
import { agentCreateSchema, agentPatchSchema } from '@/lib/schemas/agent';
import { createConversationSchema } from '@/lib/schemas/conversation';
import type { ApiAgent } from '@/lib/types/agent';
import type { Conversation } from '@/lib/types/conversation';
import { createAgent, deleteAgent, toApiAgent, updateAgent } from '@/server/agents/catalog';
import { createConversation } from '@/server/agents/conversations';
import { conversationView } from '@/server/agents/views';
import { requireUser } from '@/server/auth/require-user';
import { actionId, actionInput } from '@/server/http/action-input';
import { toActionResult } from '@/server/http/action-result';

/**
 * The agent pages' mutations: the same server/agents functions and schemas as /api/v1/agents and
 * POST /api/v1/conversations, each resolving the signed-in person itself. Another owner's agent is not_found.
 */

export async function createAgentAction(input: unknown): Promise<ActionResult<ApiAgent>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return toApiAgent(await createAgent(user.id, actionInput(agentCreateSchema, input)));
  });
}

/** Change any subset of the fields. */
export async function updateAgentAction(id: unknown, patch: unknown): Promise<ActionResult<ApiAgent>> {
  return toActionResult(async () => {
    const user = await requireUser();
    return toApiAgent(await updateAgent(user.id, actionId(id), actionInput(agentPatchSchema, patch)));
  });
}

/** Delete an agent; conversations with it stay readable. */
export async function deleteAgentAction(id: unknown): Promise<ActionResult<null>> {
  return toActionResult(async () => {
    const user = await requireUser();
    await deleteAgent(user.id, actionId(id));
    return null;
  });
}

/** A new conversation with one of the person's agents (the agent list's Chat button). */
export async function startConversationAction(agentId: unknown): Promise<ActionResult<Conversation>> {
  return toActionResult(async () => {
    const user = await requireUser();
    const input = actionInput(createConversationSchema, { agentId });
    return conversationView(await createConversation(user.id, input.agentId));
  });
}
