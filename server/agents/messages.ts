import 'server-only';
import type { BaseMessage, MessageContent } from '@langchain/core/messages';
import type { Message, ToolCall } from '@/lib/types/conversation';
import { ensembleMeta, type EnsembleMessageMeta } from './message-meta';
import { mcpSourceOfCall, mcpSourceOfMessage } from './mcp-source';
import { provenanceOf } from './provenance';

// The server meta of a message is read by provenance.ts too, which this module needs: it lives in message-meta.ts so
// the two don't import each other.
export { ensembleMeta, type EnsembleMessageMeta, type MessageAuthor } from './message-meta';

/** The plain text of a message's content (string, or the text blocks of a content array). */
export function contentText(content: MessageContent | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => {
      if (typeof block === 'string') return block;
      if (block && typeof block === 'object' && 'text' in block && typeof block.text === 'string') return block.text;
      return '';
    })
    .join('');
}

/** A tool result the person's decline wrote (the call never ran); only the server sets the mark. */
export const isDeclined = (message: BaseMessage): boolean => message.getType() === 'tool' && ensembleMeta(message)?.declined === true;

/** The text a human message asks about: its task text when the team layer set one, else its content. */
export function taskText(message: BaseMessage): string {
  const meta = ensembleMeta(message);
  return typeof meta?.taskText === 'string' ? meta.taskText : contentText(message.content);
}

/**
 * The task text of a human message the person wrote, or null for anything else (a peer's request, a receipt, a
 * message without server provenance). Only the task text counts: framed context in the content never does.
 */
export function personWrittenText(message: BaseMessage): string | null {
  const meta = ensembleMeta(message);
  return meta?.author === 'person' && typeof meta.taskText === 'string' ? meta.taskText : null;
}

/** A run's human message is `run:<run id>` (the chat reads a message's run back from it). */
export const RUN_MESSAGE_PREFIX = 'run:';
export const humanMessageId = (runId: string) => `${RUN_MESSAGE_PREFIX}${runId}`;

/** Checkpoint messages → the API's Message shape (system messages are never stored in the thread). */
export function toApiMessages(messages: readonly BaseMessage[]): Message[] {
  const out: Message[] = [];
  // Each answered MCP call's server and tool, from its result (mcp-source.ts), for the call's entry too.
  const mcpByCall = new Map<string, { server: string; tool: string }>();
  for (const message of messages) {
    const callId = (message as { tool_call_id?: string }).tool_call_id;
    const mcp = message.getType() === 'tool' && callId ? mcpSourceOfMessage(message) : undefined;
    if (mcp) mcpByCall.set(callId!, mcp);
  }
  messages.forEach((message, index) => {
    const id = message.id ?? `m${index}`;
    const type = message.getType();
    if (type === 'human') {
      const meta = ensembleMeta(message);
      // The author is the runtime's trust decision, not part of the API's message shape.
      // Provenance is returned as its own field (below), not inside meta.
      const { taskText: _task, author: _author, provenance: _provenance, ...rest } = meta ?? ({} as Partial<EnsembleMessageMeta>);
      out.push({ id, role: 'user', text: taskText(message), ...(meta ? { meta: rest } : {}), provenance: provenanceOf(message) });
    } else if (type === 'ai') {
      const calls = (message as BaseMessage & { tool_calls?: { id?: string; name: string; args: Record<string, unknown> }[] }).tool_calls ?? [];
      const toolCalls: ToolCall[] = calls.map((c, i) => {
        const mcp = c.id ? (mcpByCall.get(c.id) ?? mcpSourceOfCall(message, c.id)) : undefined;
        return { id: c.id ?? `${id}:${i}`, name: c.name, args: c.args ?? {}, ...(mcp ? { mcp } : {}) };
      });
      // Framework-written assistant messages (e.g. the note after an @mention send) carry their kind here.
      // The guards' bookkeeping (a usage estimate, notes held for the next input, the run a stop belongs to) and the MCP
      // sources of its calls (read into toolCalls above) stay inside.
      const { provenance: _provenance, tokenEstimate: _estimate, pendingNotes: _held, stopRunId: _stopRun, mcpCalls: _mcpCalls, ...meta } = ensembleMeta(message) ?? ({} as Partial<EnsembleMessageMeta>);
      const hasMeta = Object.keys(meta).length > 0;
      out.push({
        id,
        role: 'assistant',
        text: contentText(message.content),
        ...(toolCalls.length ? { toolCalls } : {}),
        ...(hasMeta ? { meta } : {}),
        provenance: provenanceOf(message),
      });
    } else if (type === 'tool') {
      const tool = message as BaseMessage & { tool_call_id?: string; status?: string };
      out.push({
        id,
        role: 'tool',
        text: contentText(message.content),
        ...(tool.tool_call_id ? { toolCallId: tool.tool_call_id } : {}),
        ...(message.name ? { toolName: message.name } : {}),
        ...(tool.tool_call_id && mcpByCall.has(tool.tool_call_id) ? { mcp: mcpByCall.get(tool.tool_call_id)! } : {}),
        ...(tool.status === 'error' ? { status: 'error' as const } : {}),
        ...(isDeclined(message) ? { declined: true } : {}),
        provenance: provenanceOf(message),
      });
    }
  });
  return out;
}
