import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { ONLY_WHEN_CHOSEN, TOOL_GROUP_NAMES, toolsForGroups } from '@/lib/tool-groups';
import { shouldDefer } from '@/server/mcp/tool-group/deferred';
import type { SelectedMcpTool } from '@/server/mcp/tool-group/names';
import { fakeTool } from './mcp-fake';

// Deferred loading counts the built-in tools a run is offered (ADR 055): an empty allowlist offers every group but
// those offered only when named (web, batch). What must not happen: an agent with two MCP tools and the default
// groups getting them deferred behind tool_search because groups it is never offered were counted.

const server = { id: 's', name: 'stub', ownerId: null, transport: 'http' as const, timeoutMs: 60_000, maxConcurrent: 4 };
const tools = (n: number): SelectedMcpTool[] => Array.from({ length: n }, (_, i) => ({ server, info: fakeTool(`t${i}`, 'x', { type: 'object' }), name: `mcp_00000000_t${i}` }));

describe('the deferral threshold', () => {
  const offeredByDefault = toolsForGroups(TOOL_GROUP_NAMES.filter((g) => !ONLY_WHEN_CHOSEN.includes(g))).length;
  const room = LIMITS.deferredTools.overTools - offeredByDefault;

  it('counts the groups an empty allowlist offers: at the threshold the tools are bound, one past it they are deferred', () => {
    expect(room).toBeGreaterThan(0);
    expect(shouldDefer(tools(room), [])).toBe(false);
    expect(shouldDefer(tools(room + 1), [])).toBe(true);
  });

  it('counts a group offered only when named once the agent names it', () => {
    const web = toolsForGroups(['web']).length;
    expect(shouldDefer(tools(LIMITS.deferredTools.overTools - web), ['web'])).toBe(false);
    expect(shouldDefer(tools(LIMITS.deferredTools.overTools - web + 1), ['web'])).toBe(true);
  });
});
