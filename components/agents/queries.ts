'use client';

import { apiFetch } from '@/lib/api-client';
import type { ApiAgent, ApiAgentList } from '@/lib/types/agent';

/** Query keys: lists live under ['agents', query], one agent under ['agent', id]. */
export const agentKeys = {
  lists: ['agents'] as const,
  list: (query: string) => ['agents', query] as const,
  detail: (id: string) => ['agent', id] as const,
};

const one = (id: string) => `/api/v1/agents/${encodeURIComponent(id)}`;

/** The agent screens' reads; their writes are server actions (agent-actions.tsx). */
export const agentsApi = {
  list: (query: string, signal?: AbortSignal) =>
    apiFetch<ApiAgentList>(`/api/v1/agents${query ? `?query=${encodeURIComponent(query)}` : ''}`, { signal }),
  get: (id: string, signal?: AbortSignal) => apiFetch<ApiAgent>(one(id), { signal }),
};
