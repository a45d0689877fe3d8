/** The conversations API as the browser sees it: H1's shared types, plus the little of an agent this UI reads. */
export type {
  Conversation,
  ConversationDetail,
  ConversationList as ConversationListResponse,
  Message,
  Run,
  RunResponse,
  RunStatus,
  ToolCall,
} from '@/lib/types/conversation';

export type AgentSummary = { id: string; name: string; model?: string; description?: string };
