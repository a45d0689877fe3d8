import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { ChatView } from '@/components/conversations/chat-view';
import { conversationKeys } from '@/components/conversations/queries';
import type { ConversationDetail } from '@/lib/types/conversation';
import { currentUser } from '@/server/auth/require-user';
import { getState } from '@/server/agents/runs';
import { conversationDetailView } from '@/server/agents/views';
import { AppError } from '@/server/http/errors';

type Props = { params: Promise<{ id: string }> };

/**
 * The signed-in person's conversation as GET /api/v1/conversations/:id answers it (same server functions, same
 * owner check), or null when it is missing or someone else's (both answer 404).
 */
const loadConversation = cache(async (id: string): Promise<ConversationDetail | null> => {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    return conversationDetailView(await getState(user.id, id));
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const detail = await loadConversation((await params).id);
  return { title: detail ? detail.conversation.agentName : 'Conversation not found' };
}

/** Rendered with its first data: the history is in the first paint, and the chat view takes over from the cache. */
export default async function ConversationPage({ params }: Props) {
  const { id } = await params;
  const detail = await loadConversation(id);
  if (!detail) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(conversationKeys.state(id), detail);
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <ChatView key={id} conversationId={id} />
    </HydrationBoundary>
  );
}
