import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { ChatView } from '@/components/conversations/chat-view';
import { currentUser } from '@/server/auth/require-user';
import { getConversation } from '@/server/agents/conversations';
import { AppError } from '@/server/http/errors';

type Props = { params: Promise<{ id: string }> };

/** The signed-in person's conversation, or null when it is missing or someone else's (both answer 404). */
const loadConversation = cache(async (id: string) => {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    return getConversation(user.id, id);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const conversation = await loadConversation((await params).id);
  return { title: conversation ? conversation.agentName : 'Conversation not found' };
}

export default async function ConversationPage({ params }: Props) {
  const { id } = await params;
  if (!(await loadConversation(id))) notFound();
  return <ChatView key={id} conversationId={id} />;
}
