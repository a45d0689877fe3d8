import { mcpServerTag, mcpServerTagOf } from './tool-name';

/**
 * "Ask before every tool of this server" (ADR 057): an approval rule naming an MCP server rather than one of its
 * tools, stored in the agent's approvalTools beside the tool names as `mcp_server:<server id>`. It holds for every
 * tool the server offers, those it adds later too, because it is matched by the server's tag in each tool's
 * model-facing name (lib/mcp/tool-name.ts), never by a list of tools. Browser-safe: the agent form writes it.
 */
export const MCP_SERVER_RULE_PREFIX = 'mcp_server:';
/** A server rule; server ids are UUIDs (the catalog checks the agent uses the server). */
export const MCP_SERVER_RULE = /^mcp_server:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export const mcpServerRule = (serverId: string): string => `${MCP_SERVER_RULE_PREFIX}${serverId}`;

/** The server id of a server rule, or null when the rule names a tool. */
export const serverIdOfRule = (rule: string): string | null => MCP_SERVER_RULE.exec(rule)?.[1] ?? null;

/**
 * Whether a call of the tool with this name needs approval under these rules: its name is listed, or it is a tool of
 * a server a rule names. The match is by the server's 32-bit tag: a clash with another server's tag can only ask
 * for more approvals, never fewer.
 */
export function approvalMatcher(rules: readonly string[]): (toolName: string) => boolean {
  const names = new Set(rules);
  const tags = new Set(rules.map(serverIdOfRule).filter((id): id is string => id !== null).map(mcpServerTag));
  return (toolName) => {
    if (names.has(toolName)) return true;
    if (!tags.size) return false;
    const tag = mcpServerTagOf(toolName);
    return tag !== null && tags.has(tag);
  };
}

/**
 * An agent's MCP selection and approval rules without these servers: their entries, their server rules, and the rules
 * of their tools (by tag) unless a server the agent keeps has the same tag (a clash: the rule may be that server's).
 * What removing a server from an agent changes, whether the server was deleted or a patch dropped an entry of a
 * server that no longer exists; rules of built-in tools are untouched.
 */
export function withoutMcpServers<S extends { serverId: string }>(
  selection: readonly S[],
  approvalTools: readonly string[],
  serverIds: ReadonlySet<string>,
): { mcpTools: S[]; approvalTools: string[] } {
  const mcpTools = selection.filter((s) => !serverIds.has(s.serverId));
  const kept = new Set(mcpTools.map((s) => mcpServerTag(s.serverId)));
  const gone = new Set([...serverIds].map(mcpServerTag).filter((tag) => !kept.has(tag)));
  const rules = approvalTools.filter((rule) => {
    const serverId = serverIdOfRule(rule);
    if (serverId !== null) return !serverIds.has(serverId);
    const tag = mcpServerTagOf(rule);
    return tag === null || !gone.has(tag);
  });
  return { mcpTools, approvalTools: rules };
}
