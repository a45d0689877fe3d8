/**
 * The MCP servers an agent may use and their tools, for the agent form's MCP field, as TanStack `queryOptions`
 * factories under ['mcp', …] (no agent owns them): the account's own servers and the deployment's
 * (GET /api/v1/mcp/servers), and one server's status and tools (GET /api/v1/mcp/servers/:id/tools).
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { McpServerStatusView, McpServerSummary, McpServerView } from '@/lib/schemas/mcp-servers';

export const mcpKeys = {
  servers: ['mcp', 'servers'] as const,
  tools: (serverId: string) => ['mcp', 'servers', serverId, 'tools'] as const,
};

export type UsableMcpServers = { servers: McpServerView[]; deploymentWide: McpServerSummary[] };

export const fetchUsableMcpServers = (signal?: AbortSignal) => apiFetch<UsableMcpServers>('/api/v1/mcp/servers', { signal });

/** `refresh`: the server reads the server's tool list again instead of answering from its cache. */
export const fetchMcpServerTools = (serverId: string, options: { signal?: AbortSignal; refresh?: boolean } = {}) =>
  apiFetch<McpServerStatusView>(`/api/v1/mcp/servers/${encodeURIComponent(serverId)}/tools${options.refresh ? '?refresh=1' : ''}`, { signal: options.signal });

export const usableMcpServersQuery = () =>
  queryOptions({ queryKey: mcpKeys.servers, queryFn: ({ signal }) => fetchUsableMcpServers(signal), staleTime: 30_000 });

export const mcpServerToolsQuery = (serverId: string) =>
  queryOptions({ queryKey: mcpKeys.tools(serverId), queryFn: ({ signal }) => fetchMcpServerTools(serverId, { signal }), staleTime: 30_000 });
