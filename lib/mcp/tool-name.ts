/**
 * The name a model sees for an MCP tool (docs/decisions/055-mcp-tools-in-runs.md). Providers accept
 * ^[a-zA-Z0-9_-]{1,64}$; MCP tool names may hold dots, slashes and up to 128 characters, and two servers may offer
 * the same tool. So the name is `mcp_<server tag>_<tool>`: the tag is a hash of the server's id (stable when the
 * server is renamed, so an approval rule keeps holding), the tool part is the tool's own name when it fits as it is,
 * else a cut of it with a hash of the whole name. No built-in tool starts with `mcp_` (a test holds them to it).
 * Browser-safe and synchronous (the agent form computes the same names as the run): FNV-1a, not a secure hash; the
 * names need to be distinct, not secret, and a rare clash is settled by the registry (the first tool keeps the name).
 */

export const MCP_TOOL_PREFIX = 'mcp_';
/** The longest name providers accept. */
export const TOOL_NAME_MAX = 64;
const TAG_CHARS = 8;
/** The room left for the tool part: 64 − "mcp_" − tag − "_". */
const TOOL_PART_MAX = TOOL_NAME_MAX - MCP_TOOL_PREFIX.length - TAG_CHARS - 1;
const NAME_SAFE = /^[A-Za-z0-9_-]+$/;

/** A model-facing MCP tool name: prefix, server tag, tool part. */
export const MCP_TOOL_NAME = new RegExp(`^${MCP_TOOL_PREFIX}([0-9a-f]{${TAG_CHARS}})_[A-Za-z0-9_-]{1,${TOOL_PART_MAX}}$`);

/** FNV-1a (32 bits) of the UTF-8 bytes, as 8 hex digits. */
export function fnv1aHex(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(TAG_CHARS, '0');
}

/** The server's part of its tools' names. */
export const mcpServerTag = (serverId: string): string => fnv1aHex(serverId);

/** The model-facing name of `tool` on the server with this id. */
export function mcpToolName(serverId: string, tool: string): string {
  const fits = NAME_SAFE.test(tool) && tool.length <= TOOL_PART_MAX;
  const part = fits ? tool : `${tool.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, TOOL_PART_MAX - TAG_CHARS - 1)}_${fnv1aHex(tool)}`;
  return `${MCP_TOOL_PREFIX}${mcpServerTag(serverId)}_${part}`;
}

/** The server tag of a model-facing MCP tool name, or null when it is not one. */
export function mcpServerTagOf(name: string): string | null {
  return MCP_TOOL_NAME.exec(name)?.[1] ?? null;
}
