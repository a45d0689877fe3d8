import 'server-only';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { BaseMessage } from '@langchain/core/messages';
import type { McpSource } from '@/lib/tool-call-label';
import { ensembleMeta } from './message-meta';

/**
 * The MCP server and tool behind a tool, a call or a result, so every place that describes a call to the person
 * names the tool and its server rather than the generated model-facing name (ADR 057). Read only from what the
 * server wrote: a tool's metadata (the MCP tool group sets it from its server record), a result's artifact (written
 * by the same tool code, never by the server's reply), or the meta of a declined call's message (built by the graph).
 */

const checked = (server: unknown, tool: unknown, origin: unknown): McpSource | undefined =>
  typeof server === 'string' && typeof tool === 'string' && origin === `mcp:${server}/${tool}` ? { server, tool } : undefined;

export function mcpSourceOfTool(tool: StructuredToolInterface | undefined): McpSource | undefined {
  const meta = (tool as { metadata?: Record<string, unknown> } | undefined)?.metadata;
  const origin = meta?.ensembleOrigin;
  const server = meta?.ensembleMcpServer;
  if (typeof origin !== 'string' || typeof server !== 'string' || !origin.startsWith(`mcp:${server}/`)) return undefined;
  return { server, tool: origin.slice(`mcp:${server}/`.length) };
}

/** A tool message's MCP source: its artifact, or, for a declined call (which never ran), the graph's meta. */
export function mcpSourceOfMessage(message: BaseMessage): McpSource | undefined {
  const a = (message as { artifact?: { origin?: unknown; server?: unknown; tool?: unknown } | null }).artifact;
  const fromArtifact = a ? checked(a.server, a.tool, a.origin) : undefined;
  if (fromArtifact) return fromArtifact;
  const meta = ensembleMeta(message);
  const m = meta?.declined === true ? (meta.mcp as { server?: unknown; tool?: unknown } | undefined) : undefined;
  return m ? checked(m.server, m.tool, `mcp:${String(m.server)}/${String(m.tool)}`) : undefined;
}

/**
 * The MCP server and tool of each of a response's calls to an MCP tool, by call id, for the graph to keep on the
 * response (meta `mcpCalls`): the chat names a call that has no result yet (running, or awaiting approval) by them.
 */
export function mcpCallSources(calls: ReadonlyArray<{ id?: string; name: string }>, sourceOf: (name: string) => McpSource | undefined): Record<string, McpSource> | undefined {
  const entries = calls.flatMap((c) => {
    const source = c.id ? sourceOf(c.name) : undefined;
    return source ? [[c.id!, source] as const] : [];
  });
  return entries.length ? Object.fromEntries(entries) : undefined;
}

/** A call's MCP source as the graph kept it on its response (mcpCallSources). */
export function mcpSourceOfCall(message: BaseMessage, callId: string): McpSource | undefined {
  const m = (ensembleMeta(message)?.mcpCalls as Record<string, { server?: unknown; tool?: unknown }> | undefined)?.[callId];
  return m ? checked(m.server, m.tool, `mcp:${String(m.server)}/${String(m.tool)}`) : undefined;
}
