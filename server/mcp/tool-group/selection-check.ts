import 'server-only';
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
  const usable = await Promise.all(selection.map(async ({ serverId }) => ((await usableMcpServer(ownerId, serverId)) ? null : serverId)));
  const unknown = usable.filter((id): id is string => id !== null);
  if (unknown.length) throw validationError({ mcpTools: `Not an MCP server you can use: ${unknown.slice(0, 3).join(', ')}` });
}

/**
 * An approval rule for an MCP tool (its model-facing name, lib/mcp/tool-name.ts) must name a tool of a server the
 * agent uses: a rule for a server it dropped would hold nothing, and would hold again, silently, if it came back.
 */
export function assertMcpApprovals(approvalTools: readonly string[], selection: AgentMcpTools): void {
  const tags = new Set(selection.map((s) => mcpServerTag(s.serverId)));
  const stray = approvalTools.filter((name) => {
    const tag = mcpServerTagOf(name);
    return tag !== null && !tags.has(tag);
  });
  if (stray.length) throw validationError({ approvalTools: `Not a tool of this agent's MCP servers: ${stray.slice(0, 3).join(', ')}` });
}
