'use client';

import { createActionsContext } from '@/components/ui/actions-context';
import type { ActionResult } from '@/lib/action-result';
import type { SendMentionsResponse } from '@/lib/mentions/types';
import type { ApprovalValue } from '@/components/approvals/approval';
import type { Conversation, RunResponse } from './types';

/**
 * The conversation pages' server actions (app/(app)/conversations/actions.ts), provided by
 * app/(app)/conversations/layout.tsx. Every retryable write carries the key the UI chose for it.
 */
export type ConversationActions = {
  create: (input: { agentId: string }) => Promise<ActionResult<Conversation>>;
  sendMessage: (conversationId: string, input: { text: string; idempotencyKey: string }) => Promise<ActionResult<RunResponse>>;
  resume: (conversationId: string, input: { value: ApprovalValue; idempotencyKey: string }) => Promise<ActionResult<RunResponse>>;
  cancelRun: (runId: string) => Promise<ActionResult<RunResponse>>;
  sendMentions: (
    conversationId: string,
    input: { memberIds: string[]; text: string; messageKey: string },
  ) => Promise<ActionResult<SendMentionsResponse>>;
  /** Delete the conversation with the hidden ones it delegated to; conversation_busy while a run works. */
  remove: (conversationId: string) => Promise<ActionResult<null>>;
};

const context = createActionsContext<ConversationActions>('Conversation');
export const ConversationActionsProvider = context.Provider;
export const useConversationActions = context.useActions;
