/** The conversations API as the browser sees it: the shared types of lib/types/conversation. */
export type {
  Conversation,
  ConversationActivity,
  ConversationDetail,
  ConversationListItem,
  ConversationList as ConversationListResponse,
  Message,
  Run,
  RunResponse,
  RunStatus,
  ToolCall,
} from '@/lib/types/conversation';
