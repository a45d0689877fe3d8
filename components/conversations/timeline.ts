/** Turns the flat message list into what the chat shows: each tool call next to its result. */
import type { ApiAttachment } from '@/lib/types/file';
import type { Provenance } from '@/lib/types/provenance';
import { isFrameworkNote, sentToLine, userMessageView } from './message-meta';
import type { Message } from './types';

export type ToolCallView = {
  id: string;
  name: string;
  args: unknown;
  /** An MCP tool's server and own name (from its result, or its decline), for naming the call (ADR 057). */
  mcp?: { server: string; tool: string };
  /** The tool message answering this call; null while the tool has not answered (running, awaiting approval). */
  result: Message | null;
};

/** What starts a turn: the run that answered it (its steps can be opened) and who produced the message. */
export type TurnInfo = { runId?: string; provenance?: Provenance };

export type TimelineItem =
  /** batchId: the end message of a batch this conversation's agent started (batch_task), linked to its batch. */
  | ({ kind: 'user'; id: string; text: string; attachments?: ApiAttachment[]; batchId?: string } & TurnInfo)
  /** The person's @mention message, with who it went to. */
  | ({ kind: 'mention'; id: string; text: string; sentTo: string } & TurnInfo)
  /** A team member's result returned to this conversation. */
  | ({ kind: 'receipt'; id: string; memberName: string; status: 'completed' | 'failed'; text: string } & TurnInfo)
  /** In a member's conversation: a request from the person or a teammate. */
  | ({ kind: 'request'; id: string; from: string; text: string } & TurnInfo)
  /** A note the framework wrote (not the agent speaking). */
  | ({ kind: 'note'; id: string; text: string } & TurnInfo)
  | { kind: 'assistant'; id: string; text: string; toolCalls: ToolCallView[] }
  /** A tool result whose call is not in the history (kept visible rather than dropped). */
  | { kind: 'tool'; id: string; message: Message };

/** The run a human message started (meta.runId, set by the server) and the message's provenance, when known. */
function turnInfo(m: Message): TurnInfo {
  const runId = typeof m.meta?.runId === 'string' ? m.meta.runId : undefined;
  return { ...(runId ? { runId } : {}), ...(m.provenance ? { provenance: m.provenance } : {}) };
}

function userItem(m: Message, next: Message | undefined): TimelineItem {
  const view = userMessageView(m);
  const turn = turnInfo(m);
  switch (view.kind) {
    case 'mention':
      return { kind: 'mention', id: m.id, text: m.text, sentTo: sentToLine(view, next && isFrameworkNote(next) ? next : null), ...turn };
    case 'receipt':
      // The message content holds the framework preamble; the result itself is in the meta.
      return { kind: 'receipt', id: m.id, memberName: view.memberName, status: view.status, text: view.resultText || m.text, ...turn };
    case 'request':
      return { kind: 'request', id: m.id, from: view.from, text: m.text, ...turn };
    default:
      return {
        kind: 'user',
        id: m.id,
        text: m.text,
        ...(m.attachments?.length ? { attachments: m.attachments } : {}),
        ...(m.meta?.kind === 'batch_result' && typeof m.meta.batchId === 'string' ? { batchId: m.meta.batchId } : {}),
        ...turn,
      };
  }
}

export function buildTimeline(messages: readonly Message[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const callsById = new Map<string, ToolCallView>();
  messages.forEach((m, index) => {
    if (m.role === 'user' && m.provenance?.contentKind === 'note' && m.provenance.producer.type === 'framework') {
      // A guard's note ("Loop limit reached: …"): the framework speaking, on the input side of the turn.
      items.push({ kind: 'note', id: m.id, text: m.text, provenance: m.provenance });
    } else if (m.role === 'user') {
      items.push(userItem(m, messages[index + 1]));
    } else if (m.role === 'assistant' && (isFrameworkNote(m) || m.provenance?.producer.type === 'framework')) {
      // Framework text on the assistant side (a note, a summary of earlier turns): never shown as the agent speaking.
      items.push({ kind: 'note', id: m.id, text: m.text, ...(m.provenance ? { provenance: m.provenance } : {}) });
    } else if (m.role === 'assistant') {
      const toolCalls: ToolCallView[] = (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args, ...(c.mcp ? { mcp: c.mcp } : {}), result: null }));
      for (const c of toolCalls) if (!callsById.has(c.id)) callsById.set(c.id, c);
      items.push({ kind: 'assistant', id: m.id, text: m.text, toolCalls });
    } else {
      const call = m.toolCallId ? callsById.get(m.toolCallId) : undefined;
      if (call && call.result === null) call.result = m;
      else items.push({ kind: 'tool', id: m.id, message: m });
    }
  });
  return items;
}

/** A stable signature of what is on screen, so autoscroll reacts to new content and not to every poll. */
export function timelineSignature(messages: readonly Message[]): string {
  const last = messages[messages.length - 1];
  return last ? `${messages.length}:${last.id}:${last.text.length}` : '0';
}

/** The call an approval interrupt stopped on: the newest unanswered call of that tool. */
export function awaitingApprovalCallId(items: readonly TimelineItem[], tool: string): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind !== 'assistant') continue;
    for (let j = item.toolCalls.length - 1; j >= 0; j--) {
      const call = item.toolCalls[j];
      if (call && call.name === tool && call.result === null) return call.id;
    }
  }
  return null;
}
