import 'server-only';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { contentText } from '../messages';

/** What the graph calls: a chat model, or one with its tools bound (both stream). */
export type StreamingModel = {
  stream(input: BaseMessage[], options?: Partial<RunnableConfig>): Promise<AsyncIterable<BaseMessage>>;
};

/**
 * One model call, streamed: each chunk's text goes to `onText` as it arrives, and the chunks are joined (LangChain's
 * own `concat`, as its invoke does when a callback asks for streaming) into the message the call returns: the same
 * content, tool calls, usage (absent stays absent) and finish reason as a non-streamed call. A model without
 * streaming (LangChain then yields its one invoke result) works unchanged. Abort is LangChain's: the signal in
 * `options` ends the stream, and the error is thrown from here.
 */
export async function streamModelCall(model: StreamingModel, input: BaseMessage[], options: Partial<RunnableConfig>, onText: (text: string) => void): Promise<AIMessage> {
  let whole: BaseMessage | undefined;
  for await (const chunk of await model.stream(input, options)) {
    const text = contentText(chunk.content);
    if (text) onText(text);
    whole = whole === undefined ? chunk : AIMessageChunk.isInstance(whole) && AIMessageChunk.isInstance(chunk) ? whole.concat(chunk) : chunk;
  }
  if (!whole) throw new Error('The model answered with an empty stream');
  return asMessage(whole);
}

/** The joined chunk as a plain AIMessage, as a non-streamed call returns it (and as the checkpoint keeps it). */
function asMessage(message: BaseMessage): AIMessage {
  if (!AIMessageChunk.isInstance(message)) return message as AIMessage;
  const chunk = message;
  return new AIMessage({
    ...(chunk.id ? { id: chunk.id } : {}),
    ...(chunk.name ? { name: chunk.name } : {}),
    content: chunk.content,
    additional_kwargs: chunk.additional_kwargs,
    response_metadata: chunk.response_metadata,
    tool_calls: chunk.tool_calls ?? [],
    invalid_tool_calls: chunk.invalid_tool_calls ?? [],
    ...(chunk.usage_metadata ? { usage_metadata: asReported(chunk.usage_metadata) } : {}),
  });
}

type Usage = NonNullable<AIMessage['usage_metadata']>;

/** Joining chunks adds empty token-detail objects the provider never sent: left out, the usage is as reported. */
function asReported(usage: Usage): Usage {
  const { input_token_details: input, output_token_details: output, ...counts } = usage;
  return { ...counts, ...(input && Object.keys(input).length ? { input_token_details: input } : {}), ...(output && Object.keys(output).length ? { output_token_details: output } : {}) };
}
