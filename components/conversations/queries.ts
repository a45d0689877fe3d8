/**
 * The conversation screens' reads, as TanStack `queryOptions` factories; writes are server actions
 * (conversation-actions.tsx). Keys are hierarchical under ['conversations']: one conversation's entries sit under
 * `conversationKeys.one(id)`, so invalidating that covers its state and its mention targets; the list sits beside
 * them under 'list' (conversation ids are UUIDs, never 'list').
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { ConversationDetail, ConversationList } from '@/lib/types/conversation';
import type { MentionTargetsResponse } from '@/lib/mentions/types';

export const conversationKeys = {
  all: ['conversations'] as const,
  list: () => ['conversations', 'list'] as const,
  one: (id: string) => ['conversations', id] as const,
  /** The conversation, its messages and its newest run (GET /conversations/:id). */
  state: (id: string) => ['conversations', id, 'state'] as const,
  mentionTargets: (id: string) => ['conversations', id, 'mention-targets'] as const,
};

const path = (id: string) => `/api/v1/conversations/${encodeURIComponent(id)}`;

/** GET /api/v1/conversations */
export const fetchConversations = (signal?: AbortSignal) => apiFetch<ConversationList>('/api/v1/conversations', { signal });

/** GET /api/v1/conversations/:id */
export const fetchConversation = (id: string, signal?: AbortSignal) => apiFetch<ConversationDetail>(path(id), { signal });

/** GET /api/v1/conversations/:id/mentions — team members this conversation can @mention. */
export const fetchMentionTargets = (id: string, signal?: AbortSignal) =>
  apiFetch<MentionTargetsResponse>(`${path(id)}/mentions`, { signal });

/** How often the list is read again while one of its conversations is working (the list has no push stream). */
export const BUSY_LIST_POLL_MS = 5_000;
/** …and otherwise, for what changed elsewhere (a run started or answered in another tab or through the API). */
export const IDLE_LIST_POLL_MS = 30_000;

export const conversationListQuery = () =>
  queryOptions({
    queryKey: conversationKeys.list(),
    queryFn: ({ signal }) => fetchConversations(signal),
    // Often while something runs (its end changes its row), seldom otherwise; never in a hidden tab, and at once when
    // the tab is shown again (the app's push-fed queries turn that off; this list has no stream).
    refetchInterval: (query) => (query.state.data?.conversations.some((c) => c.activity === 'working') ? BUSY_LIST_POLL_MS : IDLE_LIST_POLL_MS),
    refetchOnWindowFocus: true,
  });

export const conversationStateQuery = (id: string) =>
  queryOptions({ queryKey: conversationKeys.state(id), queryFn: ({ signal }) => fetchConversation(id, signal) });

/** Fetched once the person starts writing (focus or `@`), then kept for 30 s. */
export const mentionTargetsQuery = (id: string) =>
  queryOptions({ queryKey: conversationKeys.mentionTargets(id), queryFn: ({ signal }) => fetchMentionTargets(id, signal), staleTime: 30_000 });
