import 'server-only';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunEventData, StepToolCall } from '@/lib/types/run-events';
import { contentText } from '../messages';
import { capJson, capText } from './caps';
import { journalRunEvent } from './record';
import type { RunIds } from './run-ids';

type ModelCallEvent = Extract<RunEventData, { type: 'model.call' }>;

/**
 * Make one model call and record it as a `model.call` event of the step: latency, the tokens exactly as the
 * provider reported them (absent stays absent, never 0) and its finish reason. A call that throws is recorded with
 * its error, then the error is rethrown unchanged. `system` marks a call the framework made for itself (a summary).
 */
export async function observeModelCall<T extends BaseMessage>(
  run: RunIds | undefined,
  model: string,
  call: () => Promise<T>,
  options: { system?: 'summary' } = {},
): Promise<T> {
  if (!run) return call();
  const started = performance.now();
  const system = options.system ? { system: options.system } : {};
  try {
    const response = await call();
    journalRunEvent(run.runId, run.threadId, { type: 'model.call', model, ...usageOf(response), latencyMs: elapsed(started), ...finishReasonOf(response), ...system });
    return response;
  } catch (err) {
    const error = capText(err instanceof Error ? err.message || err.name : String(err)).text;
    journalRunEvent(run.runId, run.threadId, { type: 'model.call', model, latencyMs: elapsed(started), ...system, error });
    throw err;
  }
}

/**
 * Record what an agent's model turn said: its text and tool calls (arguments as JSON text), each capped; with
 * `guarded`, the calls a response guard removed before they ran and why.
 */
export function recordAssistantStep(
  run: RunIds | undefined,
  message: BaseMessage,
  guarded?: { removed: ReadonlyArray<{ id?: string; name: string; args: unknown }>; stopReason?: string },
): void {
  if (!run) return;
  const text = capText(contentText(message.content));
  const toolCalls = stepCalls(AIMessage.isInstance(message) ? (message.tool_calls ?? []) : []);
  const removed = guarded?.removed.length ? { removedToolCalls: stepCalls(guarded.removed) } : {};
  const reason = guarded?.stopReason ? { stopReason: guarded.stopReason } : {};
  journalRunEvent(run.runId, run.threadId, { type: 'step.assistant', text: text.text, ...(text.truncated ? { truncated: true as const } : {}), toolCalls, ...removed, ...reason });
}

function stepCalls(calls: ReadonlyArray<{ id?: string; name: string; args: unknown }>): StepToolCall[] {
  return calls.map((call) => {
    const args = capJson(call.args);
    return { id: call.id ?? '', name: call.name, args: args.text, ...(args.truncated ? { truncated: true as const } : {}) };
  });
}

const elapsed = (started: number) => Math.round(performance.now() - started);

/** Token counts only where the provider gave a number; a missing usage_metadata leaves both out. */
function usageOf(message: BaseMessage): Pick<ModelCallEvent, 'inputTokens' | 'outputTokens'> {
  const usage = (message as { usage_metadata?: { input_tokens?: unknown; output_tokens?: unknown } }).usage_metadata;
  const out: Pick<ModelCallEvent, 'inputTokens' | 'outputTokens'> = {};
  if (typeof usage?.input_tokens === 'number') out.inputTokens = usage.input_tokens;
  if (typeof usage?.output_tokens === 'number') out.outputTokens = usage.output_tokens;
  return out;
}

/** OpenAI's finish_reason, Anthropic's stop_reason or Ollama's done_reason, as the provider wrote it. */
function finishReasonOf(message: BaseMessage): Pick<ModelCallEvent, 'finishReason'> {
  const meta = (message as { response_metadata?: Record<string, unknown> }).response_metadata ?? {};
  const reason = meta.finish_reason ?? meta.stop_reason ?? meta.done_reason;
  return typeof reason === 'string' && reason ? { finishReason: reason } : {};
}
