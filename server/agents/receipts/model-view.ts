import 'server-only';
import { ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { receiptStampOf } from './stamp';

/**
 * What the model receives of each tool result: its receipt label first, `[r3 calculator] 42`, so it can cite the
 * call. A result from an earlier run of the thread says so instead (`[earlier run: calculator] …`): its id belongs
 * to that run's ledger and would not resolve in this one. Results without a stamp (recorded before receipts, or
 * the placeholders for dangling calls) are passed as they are. The thread itself is never changed: labelled copies
 * are made once per message and run, and reused at every later model call.
 */
export function withReceiptLabels(messages: readonly BaseMessage[], runId: string | undefined): BaseMessage[] {
  if (!runId) return messages.slice();
  return messages.map((m) => (m.getType() === 'tool' ? labelled(m as ToolMessage, runId) : m));
}

/** The label the model sees before a tool result of `runId`, or null for an unstamped one. */
export function receiptLabel(message: ToolMessage, runId: string): string | null {
  const stamp = receiptStampOf(message);
  if (!stamp) return null;
  const tool = message.name ?? 'tool';
  return stamp.runId === runId ? `[${stamp.id} ${tool}]` : `[earlier run: ${tool}]`;
}

const copies = new WeakMap<ToolMessage, { runId: string; copy: ToolMessage }>();

function labelled(message: ToolMessage, runId: string): ToolMessage {
  const cached = copies.get(message);
  if (cached?.runId === runId) return cached.copy;
  const label = receiptLabel(message, runId);
  if (!label) return message;
  const content = typeof message.content === 'string' ? `${label} ${message.content}` : [{ type: 'text' as const, text: `${label} ` }, ...message.content];
  const copy = new ToolMessage({
    id: message.id,
    tool_call_id: message.tool_call_id,
    name: message.name,
    status: message.status,
    content: content as ToolMessage['content'],
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    artifact: message.artifact,
  });
  copies.set(message, { runId, copy });
  return copy;
}

const LEADING_LABEL = /^\[(r[1-9]\d*) ([A-Za-z0-9_-]{1,64})\] /;
const LEADING_EARLIER = /^\[earlier run: [^\]\n]*\] /;

/** Read the model's view of a tool result: its receipt label (when it is this run's) and the text after it. */
export function splitReceiptLabel(text: string): { label: string | null; text: string } {
  const own = LEADING_LABEL.exec(text);
  if (own) return { label: `[${own[1]} ${own[2]}]`, text: text.slice(own[0].length) };
  const earlier = LEADING_EARLIER.exec(text);
  return { label: null, text: earlier ? text.slice(earlier[0].length) : text };
}
