import 'server-only';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { beginLiveResponse, liveScopeOf } from '../live-output/registry';
import { streamModelCall, type StreamingModel } from '../live-output/stream-call';
import { observeModelCall } from '../observe/model-call';
import type { RunIds } from '../observe/run-ids';
import { withProviderCapacity } from '@/server/providers/capacity/acquire';
import { recordModelWait } from '../observe/model-wait';
import type { ModelCapacity } from '../providers';
import { withServerId } from './message-id';

/**
 * Each attempt waits for room at its provider (its concurrency and per-minute caps, across every run and process);
 * a wait is recorded as a `model.wait` event, once per reason, so the Steps and the team's "why waiting" say so.
 */
export function providerGate(capacity: ModelCapacity, run: RunIds | undefined, model: string, signal: AbortSignal | undefined) {
  return <T,>(attempt: () => Promise<T>): Promise<T> =>
    withProviderCapacity({ ...capacity, runId: run?.runId ?? null, signal, onWait: (wait) => void recordModelWait(run, model, wait) }, attempt);
}

/**
 * The agent's model call (graph.ts `invoke`): streamed, its text the run's live output while it is written (ADR 031);
 * retried after a transient failure, each attempt a `model.call` event, the failed attempt's live text dropped and
 * the card told it is retrying (retry.ts); the answer given an id of the server's (message-id.ts). The run's scope
 * comes from the server-owned run context in `options.configurable.ensemble`.
 */
export async function callAgentModel(
  model: StreamingModel,
  input: BaseMessage[],
  options: Partial<RunnableConfig>,
  observed: { run: RunIds | undefined; model: string; capacity?: ModelCapacity },
): Promise<AIMessage> {
  const live = beginLiveResponse(liveScopeOf(options));
  try {
    const message = await observeModelCall(observed.run, observed.model, () => streamModelCall(model, input, options, live.append), {
      signal: options.signal,
      onRetry: (attempt, maxAttempts) => live.retrying({ attempt, maxAttempts }),
      ...(observed.capacity ? { gate: providerGate(observed.capacity, observed.run, observed.model, options.signal) } : {}),
    });
    return withServerId(message);
  } finally {
    live.end();
  }
}
