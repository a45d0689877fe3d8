/**
 * How a tool call is named to the person (ADR 057): an MCP tool by its own name and its server's ("shout of MCP
 * server stub-tools"), never by the generated model-facing name (`mcp_<8hex>_<tool>`); any other tool by its name.
 * The one wording the chat, the Steps (of a chat, a job card, the team's Runs) and the approval prompt share.
 */
export type McpSource = { server: string; tool: string };

export function toolCallLabel(call: { name: string; mcp?: McpSource | null }): string {
  return call.mcp ? `${call.mcp.tool} of MCP server ${call.mcp.server}` : call.name;
}
