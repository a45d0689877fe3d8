import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { agentKeys } from '@/components/agents/queries';
import { ConversationList } from '@/components/conversations/conversation-list';
import { conversationKeys } from '@/components/conversations/queries';
import { NewConversation } from '@/components/conversations/new-conversation';
import { PageHeader } from '@/components/ui/misc';
import type { ApiAgentList } from '@/lib/types/agent';
import type { ConversationList as ConversationListReply } from '@/lib/types/conversation';
import { listAgents, toApiAgent } from '@/server/agents/catalog';
import { listConversationItems } from '@/server/agents/conversation-list';
import { currentUser } from '@/server/auth/require-user';

export const metadata: Metadata = { title: 'Conversations' };

/**
 * Rendered with its first data: the signed-in person's conversations and the agents to start one with, read with
 * the same server functions as GET /api/v1/conversations and GET /api/v1/agents, into the keys the client reads.
 */
export default async function ConversationsPage() {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  const queryClient = new QueryClient();
  queryClient.setQueryData<ConversationListReply>(conversationKeys.list(), { conversations: await listConversationItems(user.id) });
  queryClient.setQueryData<ApiAgentList>(agentKeys.list(''), { agents: (await listAgents(user.id)).map(toApiAgent) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <div className="space-y-4">
        <PageHeader title="Conversations">
          <NewConversation />
        </PageHeader>
        <ConversationList />
      </div>
    </HydrationBoundary>
  );
}
