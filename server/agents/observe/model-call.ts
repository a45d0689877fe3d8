import 'server-only';
import type { McpSource } from '@/lib/tool-call-label';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunEventData, StepToolCall } from '@/lib/types/run-events';
import { env } from '@/server/env';
import { modelCallErrorText } from '../model-call/error-text';
import { withRetries } from '../model-call/retry';
import { contentText } from '../messages';
import { capJson, capText } from './caps';
import { journalRunEvent } from './record';
import type { RunIds } from './run-ids';

type ModelCallEvent = Extract<RunEventData, { type: 'model.call' }>;

export type ObserveOptions = {
  /** A call the framework made for itself (a summary), not one of the agent's turns. */
  system?: 'summary';
  /** The run's signal: a cancel or its time limit ends a wait between attempts. */
  signal?: AbortSignal;
  /** Attempt `next` of `maxAttempts` is about to start after a transient failure (the live output says so). */
  onRetry?: (next: number, maxAttempts: number) => void;
  /** Runs each attempt once the provider has room for it (server/providers/capacity); the wait is not its latency. */
  gate?: <T>(attempt: () => Promise<T>) => Promise<T>;
};

/**
 * Make one model call, retried after transient failures (model-call/retry.ts, up to MODEL_MAX_ATTEMPTS), and record
 * each attempt as a `model.call` event of the step: latency, the tokens exactly as the provider reported them
 * (absent stays absent, never 0), its finish reason, or its error. An attempt of a call that was retried carries
 * its number (`attempt`; absent: the first and only one). When no attempt is left the last error is rethrown
 * unchanged.
 */
export async function observeModelCall<T extends BaseMessage>(
  run: RunIds | undefined,
  model: string,
  call: (attempt: number) => Promise<T>,
  options: ObserveOptions = {},
): Promise<T> {
  const system = options.system ? { system: options.system } : {};
  let started = 0;
  const journal = (data: Omit<ModelCallEvent, 'type' | 'model' | 'latencyMs'>) => {
    if (run) journalRunEvent(run.runId, run.threadId, { type: 'model.call', model, latencyMs: elapsed(started), ...data, ...system });
  };
  return withRetries(
    async (attempt) => {
      started = performance.now();
      const timed = () => {
        started = performance.now();
        return call(attempt);
      };
      const response = await (options.gate ? options.gate(timed) : timed());
      journal({ ...usageOf(response), ...finishReasonOf(response), ...(attempt > 1 ? { attempt } : {}) });
      return response;
    },
    {
      maxAttempts: env.modelMaxAttempts,
      signal: options.signal,
      onFailure: (attempt, err, willRetry) =>
        journal({ ...(attempt > 1 || willRetry ? { attempt } : {}), error: capText(modelCallErrorText(err)).text }),
      onRetry: options.onRetry,
    },
  );
}

/**
 * Record what an agent's model turn said: its text and tool calls (arguments as JSON text), each capped; with
 * `guarded`, the calls a response guard removed before they ran and why.
 */
export function recordAssistantStep(
  run: RunIds | undefined,
  message: BaseMessage,
  guarded?: { removed: ReadonlyArray<{ id?: string; name: string; args: unknown }>; stopReason?: string },
  /** The MCP server and tool behind a call's name, from the run's own tools (never from the model's text). */
  sourceOf: (name: string) => McpSource | undefined = () => undefined,
): void {
  if (!run) return;
  const text = capText(contentText(message.content));
  const toolCalls = stepCalls(AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [], sourceOf);
  const removed = guarded?.removed.length ? { removedToolCalls: stepCalls(guarded.removed, sourceOf) } : {};
  const reason = guarded?.stopReason ? { stopReason: guarded.stopReason } : {};
  journalRunEvent(run.runId, run.threadId, { type: 'step.assistant', text: text.text, ...(text.truncated ? { truncated: true as const } : {}), toolCalls, ...removed, ...reason });
}

function stepCalls(calls: ReadonlyArray<{ id?: string; name: string; args: unknown }>, sourceOf: (name: string) => McpSource | undefined): StepToolCall[] {
  return calls.map((call) => {
    const args = capJson(call.args);
    const mcp = sourceOf(call.name);
    return { id: call.id ?? '', name: call.name, args: args.text, ...(args.truncated ? { truncated: true as const } : {}), ...(mcp ? { mcp } : {}) };
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
