/**
 * MCP server reads, as TanStack `queryOptions` factories under ['mcp', …]: a server's status and tools, from the
 * account's endpoint or the admin's. Adding, editing and removing are server actions (settings/admin mcp-actions.ts).
 */
import { queryOptions } from '@tanstack/react-query';
import { apiFetch } from '@/lib/api-client';
import type { McpServerStatusView } from '@/lib/schemas/mcp-servers';

export type McpScope = 'account' | 'admin';

export const mcpKeys = {
  all: ['mcp'] as const,
  tools: (scope: McpScope, id: string) => ['mcp', scope, id, 'tools'] as const,
};

const toolsPath = (scope: McpScope, id: string) => `/api/v1/${scope === 'admin' ? 'admin/' : ''}mcp/servers/${encodeURIComponent(id)}/tools`;

/** GET …/mcp/servers/:id/tools (`refresh`: the server's list is read again rather than taken from the cache). */
export const fetchMcpTools = (scope: McpScope, id: string, refresh = false, signal?: AbortSignal) =>
  apiFetch<McpServerStatusView>(`${toolsPath(scope, id)}${refresh ? '?refresh=1' : ''}`, { signal });

export const mcpToolsQuery = (scope: McpScope, id: string) =>
  queryOptions({ queryKey: mcpKeys.tools(scope, id), queryFn: ({ signal }) => fetchMcpTools(scope, id, false, signal), staleTime: 30_000 });
