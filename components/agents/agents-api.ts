'use client';

import { apiFetch } from '@/lib/api-client';
import type { AgentCreate, AgentPatch } from '@/lib/schemas/agent';
import type { ApiAgent, ApiAgentList } from '@/lib/types/agent';

/** Query keys: lists live under ['agents', query], one agent under ['agent', id]. */
export const agentKeys = {
  lists: ['agents'] as const,
  list: (query: string) => ['agents', query] as const,
  detail: (id: string) => ['agent', id] as const,
};

const one = (id: string) => `/api/v1/agents/${encodeURIComponent(id)}`;

export const agentsApi = {
  list: (query: string, signal?: AbortSignal) =>
    apiFetch<ApiAgentList>(`/api/v1/agents${query ? `?query=${encodeURIComponent(query)}` : ''}`, { signal }),
  get: (id: string, signal?: AbortSignal) => apiFetch<ApiAgent>(one(id), { signal }),
  create: (body: AgentCreate) => apiFetch<ApiAgent>('/api/v1/agents', { method: 'POST', json: body }),
  update: (id: string, patch: AgentPatch) => apiFetch<ApiAgent>(one(id), { method: 'PATCH', json: patch }),
  remove: (id: string) => apiFetch<void>(one(id), { method: 'DELETE' }),
  /** Start a conversation with the agent; the answer may be the conversation or `{ conversation }`. */
  startConversation: async (agentId: string): Promise<{ id: string }> => {
    const body = await apiFetch<{ id?: string; conversation?: { id?: string } }>('/api/v1/conversations', {
      method: 'POST',
      json: { agentId },
    });
    const id = body?.conversation?.id ?? body?.id;
    if (!id) throw new Error('The server did not return the new conversation.');
    return { id };
  },
};
