import type { ReactNode } from 'react';
import { ConversationActionsProvider } from '@/components/conversations/conversation-actions';
import {
  cancelRunAction,
  createConversationAction,
  deleteConversationAction,
  resumeConversationAction,
  sendMentionsAction,
  sendMessageAction,
} from './actions';

/** Hands the conversation pages' server actions to their client components (components never import app/). */
export default function ConversationsLayout({ children }: { children: ReactNode }) {
  return (
    <ConversationActionsProvider
      actions={{
        create: createConversationAction,
        sendMessage: sendMessageAction,
        resume: resumeConversationAction,
        cancelRun: cancelRunAction,
        sendMentions: sendMentionsAction,
        remove: deleteConversationAction,
      }}
    >
      {children}
    </ConversationActionsProvider>
  );
}
