import type { Metadata } from 'next';
import { ChatView } from '@/components/conversations/chat-view';

// The client sets the agent's name as the title once the conversation has loaded.
export const metadata: Metadata = { title: 'Conversation' };

export default async function ConversationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChatView key={id} conversationId={id} />;
}
