import 'server-only';
import { mcpToolName } from '@/lib/mcp/tool-name';
import type { McpServerRef, McpToolInfo } from '../types';

/** One MCP tool an agent's run may call: its server, the server's tool, and the name the model sees. */
export type SelectedMcpTool = { server: McpServerRef; info: McpToolInfo; name: string };

export type McpSelection = ReadonlyArray<{ serverId: string; tools: 'all' | readonly string[] }>;

/**
 * The selected tools of the servers, in a fixed order (the selection's server order, then the server's tool order),
 * each under its model-facing name. A named tool the server no longer lists is left out. Two tools that would get
 * the same name (a hash clash: lib/mcp/tool-name.ts) keep the first; the other is left out, not renamed, so a name
 * and its approval rule always mean one tool.
 */
export function selectedTools(selection: McpSelection, listed: ReadonlyMap<string, { server: McpServerRef; tools: readonly McpToolInfo[] }>): SelectedMcpTool[] {
  const out: SelectedMcpTool[] = [];
  const taken = new Set<string>();
  for (const entry of selection) {
    const found = listed.get(entry.serverId);
    if (!found) continue;
    const wanted = entry.tools === 'all' ? null : new Set(entry.tools);
    for (const info of found.tools) {
      if (wanted && !wanted.has(info.name)) continue;
      const name = mcpToolName(found.server.id, info.name);
      if (taken.has(name)) continue;
      taken.add(name);
      out.push({ server: found.server, info, name });
    }
  }
  return out;
}
