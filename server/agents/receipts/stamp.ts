import 'server-only';
import type { BaseMessage, ToolMessage } from '@langchain/core/messages';
import { ensembleMeta } from '../messages';

/** What a tool result's server meta holds about its receipt (additional_kwargs.ensemble.receipt). */
export type ReceiptStamp = { id: string; runId: string };

export const receiptId = (n: number): string => `r${n}`;

/** The receipt stamped on a tool message, if any (only the server stamps it: tool output meta is stripped first). */
export function receiptStampOf(message: BaseMessage): ReceiptStamp | undefined {
  const stamp = ensembleMeta(message)?.receipt as Partial<ReceiptStamp> | undefined;
  return stamp && typeof stamp.id === 'string' && typeof stamp.runId === 'string' ? { id: stamp.id, runId: stamp.runId } : undefined;
}

/**
 * Stamp receipts r(n+1), r(n+2), … on a step's tool results, in the order given (the order their events are
 * recorded), where n is the run's last receipt in `thread` (the graph state the step started from). Numbering comes
 * from the state, not from a counter: a step redone after a crash starts from the same state, so it stamps the same
 * numbers — no gap, no double — and its journaled step.tool events carry them.
 * The caller must strip tool-written meta before this (a tool can't forge a receipt).
 */
export function stampReceipts(thread: readonly BaseMessage[], runId: string, results: readonly ToolMessage[]): void {
  let n = lastReceiptNumber(thread, runId);
  for (const message of results) {
    const stamp: ReceiptStamp = { id: receiptId(++n), runId };
    const kwargs = (message.additional_kwargs ??= {});
    const meta = kwargs.ensemble && typeof kwargs.ensemble === 'object' ? (kwargs.ensemble as Record<string, unknown>) : {};
    kwargs.ensemble = { ...meta, receipt: stamp };
  }
}

/**
 * The number of the run's newest receipt in the thread, 0 when it has none. Walks back from the end only to the
 * newest stamped tool result: runs of a thread follow one another, so a stamp of another run means this run has
 * stamped nothing yet.
 */
export function lastReceiptNumber(thread: readonly BaseMessage[], runId: string): number {
  for (let i = thread.length - 1; i >= 0; i--) {
    const m = thread[i]!;
    if (m.getType() !== 'tool') continue;
    const stamp = receiptStampOf(m);
    if (!stamp) continue;
    return stamp.runId === runId ? Number(stamp.id.slice(1)) : 0;
  }
  return 0;
}
