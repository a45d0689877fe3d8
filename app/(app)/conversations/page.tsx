import type { Metadata } from 'next';
import { ConversationList } from '@/components/conversations/conversation-list';
import { NewConversation } from '@/components/conversations/new-conversation';
import { PageHeader } from '@/components/ui/misc';

export const metadata: Metadata = { title: 'Conversations' };

export default function ConversationsPage() {
  return (
    <div className="space-y-4">
      <PageHeader title="Conversations">
        <NewConversation />
      </PageHeader>
      <ConversationList />
    </div>
  );
}
