/** The conversation screens' reads from the API, and the query keys they live under; writes are server actions. */
import { apiFetch } from '@/lib/api-client';
import type { AgentSummary, ConversationDetail, ConversationListResponse } from './types';
import type { MentionTargetsResponse } from '@/lib/mentions/types';

export const conversationKeys = {
  all: ['conversations'] as const,
  list: () => [...conversationKeys.all, 'list'] as const,
  detail: (id: string) => [...conversationKeys.all, 'detail', id] as const,
  mentionTargets: (id: string) => [...conversationKeys.all, 'mention-targets', id] as const,
};

const enc = encodeURIComponent;

export const listConversations = (signal?: AbortSignal) =>
  apiFetch<ConversationListResponse>('/api/v1/conversations', { signal });

export const getConversation = (id: string, signal?: AbortSignal) =>
  apiFetch<ConversationDetail>(`/api/v1/conversations/${enc(id)}`, { signal });

/** Team members this conversation can @mention. */
export const getMentionTargets = (id: string, signal?: AbortSignal) =>
  apiFetch<MentionTargetsResponse>(`/api/v1/conversations/${enc(id)}/mentions`, { signal });

export const listAgents = (signal?: AbortSignal) => apiFetch<{ agents: AgentSummary[] }>('/api/v1/agents', { signal });

/** GET /api/v1/agents/:id answers `{ agent }`; a bare agent object is accepted too. */
export async function getAgent(agentId: string, signal?: AbortSignal): Promise<AgentSummary> {
  const body = await apiFetch<{ agent?: AgentSummary } & Partial<AgentSummary>>(`/api/v1/agents/${enc(agentId)}`, { signal });
  return body.agent ?? (body as AgentSummary);
}
