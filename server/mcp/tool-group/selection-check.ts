import 'server-only';
import { serverIdOfRule } from '@/lib/mcp/approval-rule';
import { mcpServerTag, mcpServerTagOf } from '@/lib/mcp/tool-name';
import type { AgentMcpTools } from '@/server/db/schema';
import { validationError } from '@/server/http/errors';
import { usableMcpServer } from '../index';

/**
 * Every server of an agent's MCP selection must be one its owner may use (deployment-wide, or the owner's own).
 * Another account's server answers exactly like a missing one: a field error naming the entry (its id, which the
 * request gave), never whether it exists elsewhere.
 */
export async function assertUsableMcpServers(ownerId: string, selection: AgentMcpTools): Promise<void> {
  const unknown = await unusableMcpServerIds(ownerId, selection);
  if (unknown.length) throw unusableMcpServers(unknown);
}

/** The ids of the selection's servers the owner may not use (missing, or another account's), in selection order. */
export async function unusableMcpServerIds(ownerId: string, selection: AgentMcpTools): Promise<string[]> {
  const usable = await Promise.all(selection.map(async ({ serverId }) => ((await usableMcpServer(ownerId, serverId)) ? null : serverId)));
  return usable.filter((id): id is string => id !== null);
}

export const unusableMcpServers = (ids: readonly string[]) => validationError({ mcpTools: `Not an MCP server you can use: ${ids.slice(0, 3).join(', ')}` });

/**
 * An approval rule for an MCP tool (its model-facing name, lib/mcp/tool-name.ts) or a whole MCP server
 * (`mcp_server:<id>`, lib/mcp/approval-rule.ts) must be of a server the agent uses: a rule for a server it dropped
 * would hold nothing, and would hold again, silently, if it came back. The selection was checked first
 * (assertUsableMcpServers), so another account's server can't be named here either: same words as a missing one.
 */
export function assertMcpApprovals(approvalTools: readonly string[], selection: AgentMcpTools): void {
  const used = new Set(selection.map((s) => s.serverId));
  const tags = new Set(selection.map((s) => mcpServerTag(s.serverId)));
  const stray = approvalTools.filter((name) => {
    const serverId = serverIdOfRule(name);
    if (serverId !== null) return !used.has(serverId);
    const tag = mcpServerTagOf(name);
    return tag !== null && !tags.has(tag);
  });
  if (stray.length) throw validationError({ approvalTools: `Not a tool of this agent's MCP servers: ${stray.slice(0, 3).join(', ')}` });
}
