import 'server-only';
import type { McpCallOptions, McpCallResult, McpServerRef, McpServerTools } from './types';

/**
 * The MCP facade: the one module run code imports from server/mcp (besides ./types). Servers are looked up per
 * owner (deployment-wide ones plus the owner's own), tools are discovered and cached, calls are validated, timed,
 * cancellable and capped.
 */

export type { McpCallOptions, McpCallResult, McpContentPart, McpProgress, McpServerRef, McpServerTools, McpToolInfo, McpTransport } from './types';
export { McpCallError } from './types';

/** Deployment-wide servers plus the owner's own. */
export async function usableMcpServers(ownerId: string): Promise<McpServerRef[]> {
  void ownerId;
  throw new Error('MCP servers: not yet implemented');
}

/** The server if this owner may use it, else null (another owner's server is not visible). */
export async function usableMcpServer(ownerId: string, serverId: string): Promise<McpServerRef | null> {
  void ownerId;
  void serverId;
  throw new Error('MCP servers: not yet implemented');
}

/** The server's tools, from the discovery cache unless refresh. Never throws for an unreachable server: status 'error'. */
export async function mcpServerTools(server: McpServerRef, opts?: { refresh?: boolean }): Promise<McpServerTools> {
  void server;
  void opts;
  throw new Error('MCP servers: not yet implemented');
}

/**
 * Call a tool: arguments validated against its input schema (McpCallError 'invalid_arguments'), the server's
 * timeout unless opts.timeoutMs, notifications/cancelled on abort or timeout, the result capped with truncation
 * marked. An isError result is returned, not thrown: a failed tool call, not a failed run.
 */
export async function callMcpTool(server: McpServerRef, tool: string, args: unknown, opts?: McpCallOptions): Promise<McpCallResult> {
  void server;
  void tool;
  void args;
  void opts;
  throw new Error('MCP servers: not yet implemented');
}

/** The logical origin of an MCP result in provenance: no URL, no credential. */
export function mcpOrigin(server: Pick<McpServerRef, 'name'>, tool: string): string {
  return `mcp:${server.name}/${tool}`;
}
