import 'server-only';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { mcpToolsFor } from './mcp-tools';

/**
 * Register the `mcp` tool group with the run core, as the team and delegation domains register theirs
 * (docs/decisions/049-run-core-seams.md). It is selected by the agent's own MCP selection, not by its tool-group
 * allowlist, so it is built for every run and offers nothing to an agent without MCP tools. Idempotent.
 */
export function registerMcpTools(): void {
  registerToolGroup('mcp', mcpToolsFor, { selectedByAgent: true });
}
