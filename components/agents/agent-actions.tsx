'use client';

import { createActionsContext } from '@/components/ui/actions-context';
import type { ActionResult } from '@/lib/action-result';
import type { AgentCreate, AgentPatch } from '@/lib/schemas/agent';
import type { ApiAgent } from '@/lib/types/agent';
import type { Conversation } from '@/lib/types/conversation';

/** The agent pages' server actions (app/(app)/agents/actions.ts), provided by app/(app)/agents/layout.tsx. */
export type AgentActions = {
  create: (input: AgentCreate) => Promise<ActionResult<ApiAgent>>;
  update: (id: string, patch: AgentPatch) => Promise<ActionResult<ApiAgent>>;
  remove: (id: string) => Promise<ActionResult<null>>;
  startConversation: (agentId: string) => Promise<ActionResult<Conversation>>;
};

const context = createActionsContext<AgentActions>('Agent');
export const AgentActionsProvider = context.Provider;
export const useAgentActions = context.useActions;
