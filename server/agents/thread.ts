import 'server-only';
import { AIMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import type { StateSnapshot } from '@langchain/langgraph';
import type { ClarificationInterrupt } from '@/lib/types/conversation';
import type { StopReason } from '@/lib/types/stop-reason';
import { getCheckpointer } from './checkpointer';
import { askedClarification } from './graph';
import { guardOutcome } from './guards/outcome';
import { humanMessageId } from './messages';
import { CLARIFICATION_TOOL } from './scripted-model';

export const threadConfig = (conversationId: string) => ({ configurable: { thread_id: conversationId } });

/** The thread's newest checkpoint: its id and messages (empty for a conversation that never ran). */
export async function readThread(conversationId: string): Promise<{ checkpointId: string | null; messages: BaseMessage[] }> {
  const tuple = await getCheckpointer().getTuple(threadConfig(conversationId));
  const messages = (tuple?.checkpoint.channel_values?.messages as BaseMessage[] | undefined) ?? [];
  return { checkpointId: tuple?.checkpoint.id ?? null, messages };
}

export const hasRunMessage = (messages: readonly BaseMessage[], runId: string) => messages.some((m) => m.id === humanMessageId(runId));

/** The question of the clarification that ended the turn (the newest ask_clarification result). */
export function clarificationFrom(messages: readonly BaseMessage[]): ClarificationInterrupt | null {
  const result = [...messages].reverse().find((m) => m.getType() === 'tool' && m.name === CLARIFICATION_TOOL) as ToolMessage | undefined;
  if (!result) return null;
  for (const m of messages) {
    if (!AIMessage.isInstance(m)) continue;
    const call = m.tool_calls?.find((c) => c.id === result.tool_call_id);
    if (call) return { type: 'clarification', question: String(call.args.question ?? ''), questionId: result.tool_call_id };
  }
  return null;
}

export type ThreadOutcome =
  | { done: false }
  | { done: true; status: 'success'; stopReason?: StopReason }
  | { done: true; status: 'interrupted'; interrupt: unknown }
  | { done: true; status: 'error'; error: string; stopReason?: StopReason };

/**
 * Where a graph state leaves the run: waiting on a graph interrupt, ended (success or clarification), failed in a
 * step, or mid-way. A step whose task finished and saved its writes but whose next checkpoint was never written
 * (the process died in between) is mid-way: its task still appears in `tasks` even when `next` is empty, and
 * continuing applies the saved writes without running the task again. An ended graph the guards stopped, or whose
 * model call failed (a handled failure), ends as guards/outcome.ts says, with its stop reason (for `runId` only,
 * when given: a stop recorded by an earlier run of the same turn is not this run's).
 */
export function outcomeOf(state: StateSnapshot, runId?: string): ThreadOutcome {
  const interrupts = state.tasks.flatMap((t) => t.interrupts ?? []).map((i) => i.value);
  if (interrupts.length) return { done: true, status: 'interrupted', interrupt: interrupts[0] };
  const failed = state.tasks.find((t) => t.error != null);
  if (failed) return { done: true, status: 'error', error: errorText(failed.error) };
  if (state.next.length || state.tasks.length) return { done: false };
  const messages = (state.values?.messages as BaseMessage[] | undefined) ?? [];
  if (askedClarification(messages)) {
    const question = clarificationFrom(messages);
    if (question) return { done: true, status: 'interrupted', interrupt: question };
  }
  const guarded = guardOutcome(messages, runId);
  if (guarded) return { done: true, ...guarded };
  return { done: true, status: 'success' };
}

function errorText(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return (typeof message === 'string' ? message : String(error)).trim().slice(0, 2_000) || 'The run failed';
}
