import 'server-only';
import { validateArguments } from './arguments';
import { connectionFor } from './connections';
import { storedMcpDiscovery } from './discovery-store';
import { mcpServerRowById, toMcpServerRef, usableMcpServerRows } from './store';
import { isMcpCallError, McpCallError, type McpCallOptions, type McpCallResult, type McpServerDiscovery, type McpServerRef, type McpServerTools } from './types';

/**
 * The MCP facade (ADR 054): the one module run code imports from server/mcp (besides ./types). Servers are looked up
 * per owner (deployment-wide ones plus the owner's own), tools are discovered and cached per process, calls are
 * validated, timed, cancellable and capped.
 */

export type { McpCallOptions, McpCallResult, McpContentPart, McpProgress, McpServerDiscovery, McpServerRef, McpServerTools, McpToolInfo, McpTransport } from './types';
export { McpCallError } from './types';

/** Deployment-wide servers plus the owner's own. */
export async function usableMcpServers(ownerId: string): Promise<McpServerRef[]> {
  return (await usableMcpServerRows(ownerId)).map(toMcpServerRef);
}

/** The server if this owner may use it, else null (another owner's server is not visible). */
export async function usableMcpServer(ownerId: string, serverId: string): Promise<McpServerRef | null> {
  const row = await mcpServerRowById(serverId);
  if (!row || (row.ownerId !== null && row.ownerId !== ownerId)) return null;
  return toMcpServerRef(row);
}

/**
 * The server's last discovery as every process sees it (ADR 057): this process lists the server when its own copy is
 * stale (or on refresh), which writes to the database, then the stored record is answered, whichever process made it.
 * Never throws for an unreachable server: status 'error', with the tools as last listed (listedAt null: never listed).
 */
export async function mcpServerTools(server: McpServerRef, opts?: { refresh?: boolean }): Promise<McpServerDiscovery> {
  let live: McpServerTools;
  try {
    live = await (await connectionFor(server)).tools(opts?.refresh ?? false);
  } catch (err) {
    return { status: 'error', checkedAt: new Date().toISOString(), error: err instanceof Error ? err.message : String(err), tools: [], listedAt: null };
  }
  return (await storedMcpDiscovery(server.id)) ?? { ...live, listedAt: live.status === 'connected' ? live.checkedAt : null };
}

/**
 * Call a tool: arguments validated against its input schema (McpCallError 'invalid_arguments'), the server's
 * timeout unless opts.timeoutMs, notifications/cancelled on abort or timeout, the result capped with truncation
 * marked. An isError result is returned, not thrown: a failed tool call, not a failed run.
 */
export async function callMcpTool(server: McpServerRef, tool: string, args: unknown, opts?: McpCallOptions): Promise<McpCallResult> {
  const conn = await connectionFor(server);
  const signal = opts?.signal ?? new AbortController().signal;
  let info;
  try {
    info = await conn.tool(tool, AbortSignal.any([signal, AbortSignal.timeout(opts?.timeoutMs ?? server.timeoutMs)]));
  } catch (err) {
    if (isMcpCallError(err)) throw err;
    if (signal.aborted) throw new McpCallError(`${tool} on the MCP server "${server.name}" was cancelled`, 'cancelled');
    throw new McpCallError(`The MCP server "${server.name}" did not list its tools in time`, 'timeout');
  }
  if (!info) throw new McpCallError(`The MCP server "${server.name}" has no tool named ${JSON.stringify(tool.slice(0, 128))}`, 'unknown_tool');
  return conn.call(tool, validateArguments(info, args), opts);
}

/** The logical origin of an MCP result in provenance: no URL, no credential. */
export function mcpOrigin(server: Pick<McpServerRef, 'name'>, tool: string): string {
  return `mcp:${server.name}/${tool}`;
}
