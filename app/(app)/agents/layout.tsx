import type { ReactNode } from 'react';
import { AgentActionsProvider } from '@/components/agents/agent-actions';
import { createAgentAction, deleteAgentAction, startConversationAction, updateAgentAction } from './actions';

/** Hands the agent pages' server actions to their client components (components never import app/). */
export default function AgentsLayout({ children }: { children: ReactNode }) {
  return (
    <AgentActionsProvider
      actions={{ create: createAgentAction, update: updateAgentAction, remove: deleteAgentAction, startConversation: startConversationAction }}
    >
      {children}
    </AgentActionsProvider>
  );
}
