import 'server-only';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { tool, type DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { recordedTools } from '@/server/agents/assembly/recorded-tools';
import { beginLiveResponse, liveScopeOf } from '@/server/agents/live-output/registry';
import { activeRuns } from '@/server/agents/run-events';
import type { RunContext } from '@/server/agents/run-types';
import { isDeferredTool, promotedToolNames } from '@/server/agents/tools/deferred';
import { noteMissingMcpServers, noteUnavailableTools } from '@/server/agents/tools/unavailable';
import type { ToolGroupAgent } from '@/server/agents/tools/registry';
import { neutralizeTags } from '@/server/trust/neutralize-tags';
import { withoutRegexKeywords } from '@/server/trust/untrusted-json-schema';
import { callMcpTool, mcpOrigin, mcpServerTools, usableMcpServer } from '../index';
import { isMcpCallError, type McpCallError, type McpProgress, type McpServerRef, type McpToolInfo } from '../types';
import { deferredToolsFor, TOOL_SEARCH } from './deferred';
import { selectedTools, type SelectedMcpTool } from './names';
import { resultText } from './result-text';

/** The artifact of an MCP tool message: written here from the server's record, never from what the server sent. */
export type McpArtifact = { origin: string; server: string; tool: string };

/** A description the model reads (the server wrote it): tags defused, cut to a size providers take. */
const DESCRIPTION_CHARS = 1_000;

/**
 * The `mcp` tool group's factory: the agent's selected MCP tools (GraphAgent.mcpTools), each a LangChain tool with
 * the server's input schema, named for the model (lib/mcp/tool-name.ts). Servers the owner may no longer use (noted
 * for the run's steps, by id) and tools the server no longer lists are left out. A continued run keeps the tools it
 * recorded at its start: one the server changed since (its schema hash differs) answers each call with a tool error
 * instead of calling a tool the run's record doesn't describe, and one added since is not offered. Past a size
 * (LIMITS.deferredTools) the tools are deferred and `tool_search` loads them (deferred.ts).
 */
export async function mcpToolsFor(context: RunContext, agent?: ToolGroupAgent): Promise<StructuredToolInterface[]> {
  const selection = agent?.mcpTools ?? [];
  if (!selection.length) return [];
  const [listed, recorded] = await Promise.all([listedTools(context.ownerId, selection.map((s) => s.serverId)), recordedTools(context.runId)]);
  // A server never listed has no known tools: the run's setup says so (its name and a code, never its error text).
  noteUnavailableTools(
    context,
    'mcp',
    [...listed.values()].filter((l) => l.listedAt === null).map((l) => ({ origin: `mcp:${l.server.name}`, reason: 'never_listed' as const })),
  );
  // A server the owner may no longer use (deleted, or another account's) is left out; the run's steps say so, by id.
  noteMissingMcpServers(context, [...new Set(selection.map((s) => s.serverId).filter((id) => !listed.has(id)))]);
  let chosen = selectedTools(selection, listed);
  const pinned = recorded ? new Map(recorded.filter((t) => t.schemaHash).map((t) => [t.name, t.schemaHash!])) : null;
  if (pinned) chosen = chosen.filter((t) => pinned.has(t.name));
  const tools = chosen.map((selected) => mcpTool(selected, pinned?.get(selected.name)));
  return deferredToolsFor(tools, chosen, agent?.toolGroups ?? []);
}

/**
 * Each usable server's tools as last listed by any process (ADR 057): a server unreachable now still offers them
 * (with the schemas and hashes of that listing), and a call to it fails naming the server while the run goes on.
 */
async function listedTools(ownerId: string, serverIds: readonly string[]): Promise<Map<string, { server: McpServerRef; tools: McpToolInfo[]; listedAt: string | null }>> {
  const found = await Promise.all(
    serverIds.map(async (id) => {
      const server = await usableMcpServer(ownerId, id);
      if (!server) return null;
      const listing = await mcpServerTools(server);
      return { server, tools: listing.tools, listedAt: listing.listedAt };
    }),
  );
  return new Map(found.filter((f) => f !== null).map((f) => [f.server.id, f]));
}

function mcpTool({ server, info, name }: SelectedMcpTool, recordedHash: string | undefined): StructuredToolInterface {
  const origin = mcpOrigin(server, info.name);
  const artifact: McpArtifact = { origin, server: server.name, tool: info.name };
  const changed = recordedHash !== undefined && recordedHash !== info.schemaHash;
  const description = neutralizeTags(`${info.description || info.annotations?.title || info.name} (tool "${info.name}" of the MCP server "${server.name}")`).slice(0, DESCRIPTION_CHARS);
  const made = tool(
    async (args: unknown, config: RunnableConfig & { toolCall?: { id?: string }; state?: { messages?: unknown } }) => {
      const reply = (content: string, status: 'success' | 'error') =>
        new ToolMessage({ tool_call_id: config.toolCall?.id ?? '', name, content, status, artifact });
      if (changed) {
        return reply(`The MCP server "${server.name}" changed the tool "${info.name}" after this run started, so it was not called. A new message starts a run with the tool as the server offers it now.`, 'error');
      }
      // A deferred tool runs once a search in this turn loaded it (the tools node hands tools the graph's state): a
      // model that guesses a listed name can't call a tool whose schema it was never given.
      const messages = config.state?.messages;
      if (isDeferredTool(made) && Array.isArray(messages) && !promotedToolNames(messages as BaseMessage[]).has(name)) {
        return reply(`${name} is not loaded yet: call ${TOOL_SEARCH} with its name first, then call it.`, 'error');
      }
      const context = config.configurable?.ensemble as RunContext | undefined;
      // The run's own abort (cancel, time limit, shutdown): the graph hands tools a signal that never aborts.
      const signal = context ? activeRuns().get(context.runId)?.controller.signal : undefined;
      // Progress shows in the live output as this tool's, not as the model writing (ADR 031, 055).
      const live = beginLiveResponse(liveScopeOf(config), { server: server.name, tool: info.name });
      try {
        const result = await callMcpTool(server, info.name, args, { ...(signal ? { signal } : {}), onProgress: (p) => live.append(progressLine(server, info, p)) });
        // An isError result is a failed tool call: the model reads it and the run goes on.
        return reply(resultText(result), result.isError ? 'error' : 'success');
      } catch (error) {
        if (isMcpCallError(error)) return reply(callErrorText(server, info, error), 'error');
        throw error;
      } finally {
        live.end();
      }
    },
    {
      name,
      description,
      // What the model sees and LangChain checks before the tool runs: without regex keywords, which LangChain would
      // run on the backtracking engine (a server's `pattern` could hold the event loop for minutes); the tool's full
      // check, patterns included, is validateArguments' on RE2 (server/mcp/arguments.ts).
      schema: withoutRegexKeywords(info.inputSchema) as Record<string, unknown>,
      metadata: { ensembleOrigin: origin, ensembleSchemaHash: info.schemaHash, ensembleMcpServer: server.name },
    },
  );
  return checkedByTheToolOnly(made) as StructuredToolInterface;
}

const ANY_ARGUMENTS: Record<string, unknown> = {};

/**
 * The tool with LangChain's own check of its arguments left out. LangChain checks a JSON-schema tool's arguments
 * synchronously at the start of `call` (which `invoke` uses), and a refusal there answers the model only "Received
 * tool input did not match expected schema / Please fix your mistakes", naming no field, with a result that no longer
 * says which server it is of. The tool's own check (validateArguments in the facade, on RE2) names the field and
 * answers through callErrorText; during that synchronous start LangChain sees a schema that takes any arguments.
 */
function checkedByTheToolOnly(made: DynamicStructuredTool): DynamicStructuredTool {
  const call = made.call.bind(made);
  made.call = (...args: Parameters<DynamicStructuredTool['call']>) => {
    const schema = made.schema;
    made.schema = ANY_ARGUMENTS;
    try {
      return call(...args);
    } finally {
      made.schema = schema;
    }
  };
  return made;
}

function progressLine(server: McpServerRef, info: McpToolInfo, p: McpProgress): string {
  const amount = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  const message = p.message ? ` ${neutralizeTags(p.message.replace(/\s+/g, ' ').slice(0, 200))}` : '';
  return `${server.name}/${info.name}: ${amount}${message}\n`;
}

/** A clear sentence for each way a call can fail before it has a result (the server's own message is data). */
export function callErrorText(server: Pick<McpServerRef, 'name'>, info: Pick<McpToolInfo, 'name'>, error: McpCallError): string {
  const what = `"${info.name}" on the MCP server "${server.name}"`;
  const detail = neutralizeTags(error.message.slice(0, 500));
  switch (error.code) {
    case 'invalid_arguments':
      return `The arguments don't fit the input schema of ${what}, so it was not called: ${detail}`;
    case 'timeout':
      return `${what} did not answer in time; the call was cancelled.`;
    case 'cancelled':
      return `The call to ${what} was cancelled.`;
    case 'interrupted':
      // Not "did not run": the call was sent, and the tool may have done some or all of its work.
      return `The MCP server "${server.name}" stopped while "${info.name}" was running, so whether it did its work is unknown. The server starts again on the next call.`;
    case 'server_unavailable':
      return `The MCP server "${server.name}" could not be reached, so ${what} did not run: ${detail}`;
    case 'unknown_tool':
      return `The MCP server "${server.name}" no longer offers "${info.name}".`;
    default:
      return `${what} answered with something that is not a valid MCP reply: ${detail}`;
  }
}
