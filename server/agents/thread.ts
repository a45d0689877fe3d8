import 'server-only';
import { AIMessage, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import type { StateSnapshot } from '@langchain/langgraph';
import type { ClarificationInterrupt } from '@/lib/types/conversation';
import { getCheckpointer } from './checkpointer';
import { askedClarification } from './graph';
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
  | { done: true; status: 'success' }
  | { done: true; status: 'interrupted'; interrupt: unknown };

/** Where a graph state leaves the run: waiting on a graph interrupt, ended (success or clarification), or mid-way. */
export function outcomeOf(state: StateSnapshot): ThreadOutcome {
  const interrupts = state.tasks.flatMap((t) => t.interrupts ?? []).map((i) => i.value);
  if (interrupts.length) return { done: true, status: 'interrupted', interrupt: interrupts[0] };
  if (state.next.length) return { done: false };
  const messages = (state.values?.messages as BaseMessage[] | undefined) ?? [];
  if (askedClarification(messages)) {
    const question = clarificationFrom(messages);
    if (question) return { done: true, status: 'interrupted', interrupt: question };
  }
  return { done: true, status: 'success' };
}
