import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { LIMITS } from '@/lib/limits';
import { truncateText } from '@/lib/text';
import type { DelegationResult } from '@/lib/types/delegation';
import { isStopReason } from '@/lib/types/stop-reason';
import type { Delegation, Run } from '@/server/db/schema';
import { contentText } from '../messages';
import { checkCitations } from '../receipts/citations';
import { receiptsOf } from '../receipts/ledger';
import { readThread } from '../thread';
import { capturedOutput } from './output-capture';
import type { DelegationSpec } from './spec';

type Finished = { status: DelegationResult['status']; result: DelegationResult; error: string | null };

/** The child's final answer: the newest assistant text without tool calls, cut to LIMITS.result.maxBytes. */
function finalAnswer(messages: readonly BaseMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (!AIMessage.isInstance(m) || m.tool_calls?.length) continue;
    const text = contentText(m.content).trim();
    if (text) return truncateText(text, LIMITS.result.maxBytes).text;
  }
  return null;
}

/**
 * What the parent receives for a child whose run has finished: its status (a run that succeeded but did not submit a
 * valid output for its schema has failed, with the reason), stop reason, model, token usage from its recorded model
 * calls, its receipts and its answer's citations checked against them (evidence the calls happened, not that the
 * claims are true), and its answer or structured output.
 */
export async function childOutcome(row: Delegation, run: Run): Promise<Finished> {
  const { messages } = await readThread(run.conversationId);
  const spec = row.spec as DelegationSpec;
  const output = finalAnswer(messages);
  const receipts = await receiptsOf(run.id);
  let status: DelegationResult['status'] = run.status === 'success' ? 'completed' : run.status === 'cancelled' ? 'cancelled' : 'failed';
  let error: string | null = run.status === 'error' ? (run.error ?? 'The child run failed') : null;
  if (run.status === 'interrupted') error = 'The child stopped to wait for a person, which a delegated child cannot do';
  let structured: unknown;
  const schema = spec.request?.output_schema;
  if (status === 'completed' && schema) {
    const captured = capturedOutput(messages, schema);
    if (captured.ok) structured = captured.value;
    else {
      status = 'failed';
      error = captured.reason;
    }
  }
  const result: DelegationResult = {
    delegationId: row.id,
    childRunId: run.id,
    status,
    stopReason: isStopReason(run.stopReason) ? run.stopReason : null,
    model: run.model,
    usage: childUsage(run),
    receipts,
    citations: output ? checkCitations(output, receipts) : [],
    output,
    ...(structured !== undefined ? { structured } : {}),
    ...(error ? { error } : {}),
  };
  return { status, result, error };
}

/**
 * A child's usage as reported: a run with no model call that reported any (or no run at all) has absent token
 * figures, not zeros; calls that reported none are counted as unreported.
 */
export function childUsage(run: Pick<Run, 'inputTokens' | 'outputTokens' | 'modelCalls' | 'unreportedCalls'> | null): DelegationResult['usage'] {
  const modelCalls = run?.modelCalls ?? 0;
  const unreportedCalls = run?.unreportedCalls ?? 0;
  const reported = modelCalls > unreportedCalls;
  return {
    inputTokens: reported ? (run?.inputTokens ?? null) : null,
    outputTokens: reported ? (run?.outputTokens ?? null) : null,
    modelCalls,
    unreportedCalls,
  };
}

/** The result of a child cancelled before its run started (or whose run is gone). */
export function cancelledResult(row: Delegation, run: Run | null): DelegationResult {
  return {
    delegationId: row.id,
    childRunId: run?.id ?? row.childRunId,
    status: 'cancelled',
    stopReason: null,
    model: run?.model ?? '',
    usage: childUsage(run),
    receipts: [],
    citations: [],
    output: null,
    error: 'Cancelled',
  };
}

export function failedResult(row: Delegation, error: string): DelegationResult {
  return { ...cancelledResult(row, null), status: 'failed', error };
}
