import 'server-only';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { beginLiveResponse, liveScopeOf } from './registry';
import { streamModelCall, type StreamingModel } from './stream-call';

/**
 * The graph's model call (graph.ts `invoke`), streamed so its text is live output of the run while it is written
 * (ADR 031). Returns the same message a non-streamed call would; the run's scope comes from the server-owned run
 * context in `options.configurable.ensemble`.
 */
export async function callModelStreaming(model: StreamingModel, input: BaseMessage[], options: Partial<RunnableConfig>): Promise<AIMessage> {
  const live = beginLiveResponse(liveScopeOf(options));
  try {
    return await streamModelCall(model, input, options, live.append);
  } finally {
    live.end();
  }
}
