import 'server-only';
import { ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import { LIMITS } from '@/lib/limits';
import { ONLY_WHEN_CHOSEN, TOOL_GROUP_NAMES, toolsForGroups } from '@/lib/tool-groups';
import type { PromotionArtifact } from '@/server/agents/tools/deferred';
import { neutralizeTags } from '@/server/trust/neutralize-tags';
import type { SelectedMcpTool } from './names';

export const TOOL_SEARCH = 'tool_search';
const D = LIMITS.deferredTools;
/** Deferred tools listed by name in tool_search's description; the rest are found by searching. */
const CATALOG_LINES = 200;

/**
 * Seed 000's deferred loading. When the run would offer more tools than LIMITS.deferredTools.overTools (its
 * built-in groups counted from the catalog, plus its MCP tools), or the MCP schemas would take more than
 * overSchemaTokens (estimated at 4 characters a token), the MCP tools are marked deferred: the model is given
 * `tool_search` instead, whose description lists each deferred tool by name and one line of its description, and
 * a search promotes the best matches into the run (server/agents/tools/deferred.ts binds them from the next model
 * call on). The list is the servers' text, so it sits in a tool's description (where every MCP description goes),
 * tag-neutralized, never in the system message.
 */
export function deferredToolsFor(tools: StructuredToolInterface[], chosen: readonly SelectedMcpTool[], toolGroups: readonly string[]): StructuredToolInterface[] {
  if (!tools.length || !shouldDefer(chosen, toolGroups)) return tools;
  for (const t of tools) {
    const holder = t as { metadata?: Record<string, unknown> };
    holder.metadata = { ...holder.metadata, ensembleDeferred: true };
  }
  return [...tools, toolSearch(chosen)];
}

export function shouldDefer(chosen: readonly SelectedMcpTool[], toolGroups: readonly string[]): boolean {
  // An empty allowlist offers every group but those offered only when named (web, batch): they are not counted.
  const builtIn = toolGroups.length ? toolsForGroups(toolGroups) : toolsForGroups(TOOL_GROUP_NAMES.filter((g) => !ONLY_WHEN_CHOSEN.includes(g)));
  const count = builtIn.length + chosen.length;
  if (count > D.overTools) return true;
  const schemaChars = chosen.reduce((sum, t) => sum + t.info.description.length + JSON.stringify(t.info.inputSchema).length, 0);
  return Math.ceil(schemaChars / 4) > D.overSchemaTokens;
}

/** The first line of a description, cut to the catalog's line length. */
const oneLine = (text: string): string => {
  const first = text.split(/\r?\n|\u2028|\u2029/, 1)[0]!.trim();
  return [...first].length > D.lineChars ? `${[...first].slice(0, D.lineChars - 1).join('')}…` : first;
};

function toolSearch(chosen: readonly SelectedMcpTool[]): StructuredToolInterface {
  const lines = chosen.slice(0, CATALOG_LINES).map((t) => `- ${t.name}: ${oneLine(t.info.description || t.info.name)} (${t.server.name})`);
  const more = chosen.length > CATALOG_LINES ? [`…and ${chosen.length - CATALOG_LINES} more: search to find them.`] : [];
  const description = neutralizeTags(
    [
      `Load tools whose schemas are not loaded yet, by a search of their names and descriptions (at most ${D.promotePerSearch} a search; give exact names to pick them). A loaded tool can be called from your next step on. Tools to load:`,
      ...lines,
      ...more,
    ].join('\n'),
  );
  return tool(
    async ({ query }: { query: string }, config: RunnableConfig & { toolCall?: { id?: string } }) => {
      const found = searchTools(chosen, query);
      const artifact: PromotionArtifact = { promotes: found.map((t) => t.name) };
      const content = found.length
        ? ['Loaded:', ...found.map((t) => `- ${t.name}: ${oneLine(t.info.description || t.info.name)} (${t.server.name})`)].join('\n')
        : 'No tool matched. Try other words, or exact names from the list.';
      return new ToolMessage({ tool_call_id: config.toolCall?.id ?? '', name: TOOL_SEARCH, content: neutralizeTags(content), status: 'success', artifact });
    },
    {
      name: TOOL_SEARCH,
      description,
      schema: z.object({ query: z.string().min(1).max(D.queryChars).describe('Words to look for, or exact tool names separated by spaces') }),
    },
  ) as StructuredToolInterface;
}

/**
 * The tools a query picks: exact names first (the model's or the server's), then by how many of the query's words
 * appear in a tool's names, description and server name (ties in catalog order), at most promotePerSearch.
 */
export function searchTools(chosen: readonly SelectedMcpTool[], query: string): SelectedMcpTool[] {
  const words = query.toLowerCase().split(/[\s,]+/).filter(Boolean);
  const exact = chosen.filter((t) => words.includes(t.name.toLowerCase()) || words.includes(t.info.name.toLowerCase()));
  const scored = chosen
    .filter((t) => !exact.includes(t))
    .map((t, index) => {
      const haystack = `${t.name} ${t.info.name} ${t.info.description} ${t.server.name}`.toLowerCase();
      return { t, index, score: words.filter((w) => haystack.includes(w)).length };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((s) => s.t);
  return [...exact, ...scored].slice(0, D.promotePerSearch);
}
