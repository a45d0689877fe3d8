import 'server-only';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { turnMessages } from '../guards/notes';

/**
 * Deferred tools (seed 000): a group may offer tools whose schemas the model is not given until a search promotes
 * them (server/mcp/tool-group/deferred.ts marks MCP tools so when an agent has too many). They are executable all
 * along (the tools node holds every tool of the run), but bound to the model only once promoted.
 *
 * A promotion is the artifact of a search's tool result in the current turn: `{ promotes: string[] }`. Only the
 * server's tool code writes artifacts (a model writes calls, not results), so a model can't promote by text. The
 * turn is the run's unit here: a resume after an approval goes on with the same turn and keeps its promotions; a
 * delegated child has its own thread, so it never inherits its parent's.
 */

type ToolMeta = { ensembleDeferred?: unknown };

export const isDeferredTool = (tool: StructuredToolInterface): boolean =>
  ((tool as { metadata?: ToolMeta }).metadata?.ensembleDeferred ?? false) === true;

/** The artifact a search result carries for the tools it promotes. */
export type PromotionArtifact = { promotes: string[] };

/** The tool names promoted by search results of the current turn. */
export function promotedToolNames(messages: readonly BaseMessage[]): Set<string> {
  const names = new Set<string>();
  for (const message of turnMessages(messages)) {
    if (!ToolMessage.isInstance(message) || message.status === 'error') continue;
    const promotes = (message.artifact as Partial<PromotionArtifact> | null | undefined)?.promotes;
    if (Array.isArray(promotes)) for (const name of promotes) if (typeof name === 'string') names.add(name);
  }
  return names;
}

/** The tools the model is given now: every tool not deferred, and the deferred ones promoted in this turn. */
export function boundTools(tools: readonly StructuredToolInterface[], messages: readonly BaseMessage[]): StructuredToolInterface[] {
  if (!tools.some(isDeferredTool)) return [...tools];
  const promoted = promotedToolNames(messages);
  return tools.filter((tool) => !isDeferredTool(tool) || promoted.has(tool.name));
}
