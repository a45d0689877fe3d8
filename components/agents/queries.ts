/**
 * The agent screens' reads, as TanStack `queryOptions` factories under ['agents', …]; their writes are server actions
 * (agent-actions.tsx). Keys are hierarchical: invalidating `agentKeys.all` covers every list and every agent,
 * `agentKeys.lists` every search of the catalog.
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { ModelCatalog } from '@/lib/model-picker';
import type { ApiAgent, ApiAgentList } from '@/lib/types/agent';

export const agentKeys = {
  all: ['agents'] as const,
  lists: ['agents', 'list'] as const,
  /** One search of the catalog ('' = all agents). */
  list: (query: string) => ['agents', 'list', query] as const,
  detail: (id: string) => ['agents', 'detail', id] as const,
};

/** GET /api/v1/agents?query= */
export const fetchAgents = (query: string, signal?: AbortSignal) =>
  apiFetch<ApiAgentList>(`/api/v1/agents${query ? `?query=${encodeURIComponent(query)}` : ''}`, { signal });

/** GET /api/v1/agents/:id — answers the agent itself (not wrapped). */
export const fetchAgent = (id: string, signal?: AbortSignal) =>
  apiFetch<ApiAgent>(`/api/v1/agents/${encodeURIComponent(id)}`, { signal });

export const agentListQuery = (query: string) =>
  queryOptions({ queryKey: agentKeys.list(query), queryFn: ({ signal }) => fetchAgents(query, signal) });

export const agentQuery = (id: string) =>
  queryOptions({ queryKey: agentKeys.detail(id), queryFn: ({ signal }) => fetchAgent(id, signal) });

/** The Model picker's providers and cached model lists (GET /api/v1/models); outside ['agents'], as no agent owns them. */
export const modelCatalogKey = ['models', 'catalog'] as const;

export const fetchModelCatalog = (signal?: AbortSignal) => apiFetch<ModelCatalog>('/api/v1/models', { signal });

export const modelCatalogQuery = () =>
  queryOptions({ queryKey: modelCatalogKey, queryFn: ({ signal }) => fetchModelCatalog(signal), staleTime: 60_000 });
