/** Browser calls to the conversations API, and the query keys they live under. */
import { apiFetch } from '@/lib/api-client';
import type { AgentSummary, Conversation, ConversationDetail, ConversationListResponse, RunResponse } from './types';
import type { ApprovalValue } from './approval';
import type { MentionTargetsResponse, SendMentionsResponse } from '@/lib/mentions/types';

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

export const sendMessage = (id: string, text: string, idempotencyKey: string) =>
  apiFetch<RunResponse>(`/api/v1/conversations/${enc(id)}/messages`, { method: 'POST', json: { text, idempotencyKey } });

export const resumeConversation = (id: string, value: ApprovalValue, idempotencyKey: string) =>
  apiFetch<RunResponse>(`/api/v1/conversations/${enc(id)}/resume`, { method: 'POST', json: { value, idempotencyKey } });

/** Team members this conversation can @mention. */
export const getMentionTargets = (id: string, signal?: AbortSignal) =>
  apiFetch<MentionTargetsResponse>(`/api/v1/conversations/${enc(id)}/mentions`, { signal });

/** Queue one request per member; the same messageKey again answers with the requests already queued. */
export const sendMentions = (id: string, body: { memberIds: string[]; text: string; messageKey: string }) =>
  apiFetch<SendMentionsResponse>(`/api/v1/conversations/${enc(id)}/mentions`, { method: 'POST', json: body });

export const cancelRun = (runId: string) => apiFetch<RunResponse>(`/api/v1/runs/${enc(runId)}/cancel`, { method: 'POST' });

export const listAgents = (signal?: AbortSignal) => apiFetch<{ agents: AgentSummary[] }>('/api/v1/agents', { signal });

/** POST /api/v1/conversations answers `{ conversation }`; a bare conversation object is accepted too. */
export async function createConversation(agentId: string): Promise<Conversation> {
  const body = await apiFetch<{ conversation?: Conversation } & Partial<Conversation>>('/api/v1/conversations', {
    method: 'POST',
    json: { agentId },
  });
  const conversation = body.conversation ?? (body as Conversation);
  if (!conversation?.id) throw new Error('The server did not return the new conversation.');
  return conversation;
}

/** GET /api/v1/agents/:id answers `{ agent }`; a bare agent object is accepted too. */
export async function getAgent(agentId: string, signal?: AbortSignal): Promise<AgentSummary> {
  const body = await apiFetch<{ agent?: AgentSummary } & Partial<AgentSummary>>(`/api/v1/agents/${enc(agentId)}`, { signal });
  return body.agent ?? (body as AgentSummary);
}
