import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { isStopReason, type StopReason } from '@/lib/types/stop-reason';
import { ensembleMeta } from '../messages';
import { markedModelError } from './model-error';
import { isGuardNote, noteText, turnMessages } from './notes';
import { hasText } from './index';

export type GuardOutcome = { status: 'success'; stopReason: StopReason } | { status: 'error'; error: string; stopReason?: StopReason };

/** The stop reason a message carries for `runId` (any run when runId is not given). */
function stopOf(message: BaseMessage, runId: string | undefined): StopReason | null {
  const meta = ensembleMeta(message);
  const reason = meta?.stopReason;
  if (!isStopReason(reason)) return null;
  const owner = isGuardNote(message) ? meta?.runId : meta?.stopRunId;
  return runId === undefined || owner === undefined || owner === runId ? reason : null;
}

/**
 * How the guards ended a finished graph, or null when they did not: a handled model failure (the newest message is
 * its marker) fails the run with that error; a stop reason in this turn completes the run when its newest response
 * is an answer (text, no tool calls) and fails it otherwise, with the stop note as the error.
 */
export function guardOutcome(messages: readonly BaseMessage[], runId?: string): GuardOutcome | null {
  const turn = turnMessages(messages);
  let stopReason: StopReason | null = null;
  let note: string | null = null;
  for (const m of turn) {
    const reason = stopOf(m, runId);
    if (!reason) continue;
    stopReason = reason;
    if (isGuardNote(m)) note = noteText(m);
  }
  const failure = markedModelError(messages.at(-1));
  if (failure) return { status: 'error', error: failure.message, ...(stopReason ? { stopReason } : {}) };
  if (!stopReason) return null;
  const last = [...turn].reverse().find((m) => AIMessage.isInstance(m) && !markedModelError(m)) as AIMessage | undefined;
  if (last && !last.tool_calls?.length && hasText(last)) return { status: 'success', stopReason };
  return { status: 'error', error: note ?? `The run stopped early (${stopReason}) without an answer.`, stopReason };
}
