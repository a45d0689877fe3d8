/**
 * MCP server reads, as TanStack `queryOptions` factories under ['mcp', …], one per endpoint: the servers an account
 * may use (GET /api/v1/mcp/servers: its own and the deployment's, for the agent form) and a server's status and tools
 * from the account's endpoint or the admin's (GET …/mcp/servers/:id/tools, for Settings, Admin and the agent form
 * alike, so they share one cache entry), and the agents that use a server (…/:id/agents, for its removal dialog). Adding, editing and removing are server actions (settings/admin
 * mcp-actions.ts).
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { McpServerStatusView, McpServerSummary, McpServerUsageView, McpServerView } from '@/lib/schemas/mcp-servers';

export type McpScope = 'account' | 'admin';

export const mcpKeys = {
  all: ['mcp'] as const,
  usable: ['mcp', 'usable'] as const,
  tools: (scope: McpScope, id: string) => ['mcp', scope, id, 'tools'] as const,
  agents: (scope: McpScope, id: string) => ['mcp', scope, id, 'agents'] as const,
};

export type UsableMcpServers = { servers: McpServerView[]; deploymentWide: McpServerSummary[] };

export const fetchUsableMcpServers = (signal?: AbortSignal) => apiFetch<UsableMcpServers>('/api/v1/mcp/servers', { signal });

export const usableMcpServersQuery = () =>
  queryOptions({ queryKey: mcpKeys.usable, queryFn: ({ signal }) => fetchUsableMcpServers(signal), staleTime: 30_000 });

const toolsPath = (scope: McpScope, id: string) => `/api/v1/${scope === 'admin' ? 'admin/' : ''}mcp/servers/${encodeURIComponent(id)}/tools`;

/** GET …/mcp/servers/:id/tools (`refresh`: the server's list is read again rather than taken from the cache). */
export const fetchMcpTools = (scope: McpScope, id: string, refresh = false, signal?: AbortSignal) =>
  apiFetch<McpServerStatusView>(`${toolsPath(scope, id)}${refresh ? '?refresh=1' : ''}`, { signal });

export const mcpToolsQuery = (scope: McpScope, id: string) =>
  queryOptions({ queryKey: mcpKeys.tools(scope, id), queryFn: ({ signal }) => fetchMcpTools(scope, id, false, signal), staleTime: 30_000 });

const agentsPath = (scope: McpScope, id: string) => `/api/v1/${scope === 'admin' ? 'admin/' : ''}mcp/servers/${encodeURIComponent(id)}/agents`;

/** GET …/mcp/servers/:id/agents: the agents that removing the server changes (read fresh each time it is asked). */
export const mcpUsageQuery = (scope: McpScope, id: string) =>
  queryOptions({
    queryKey: mcpKeys.agents(scope, id),
    queryFn: ({ signal }) => apiFetch<McpServerUsageView>(agentsPath(scope, id), { signal }),
    staleTime: 0,
    gcTime: 0,
  });
