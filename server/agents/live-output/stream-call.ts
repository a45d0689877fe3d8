import 'server-only';
import { AIMessage, AIMessageChunk, BaseMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { contentText } from '../messages';

/** What the graph calls: a chat model, or one with its tools bound (both stream). */
export type StreamingModel = {
  stream(input: BaseMessage[], options?: Partial<RunnableConfig>): Promise<AsyncIterable<BaseMessage>>;
};

/**
 * One model call, streamed: each chunk's text goes to `onText` as it arrives, and the chunks are joined (LangChain's
 * own `concat`, as its invoke does when a callback asks for streaming) into the message the call returns: the same
 * content, tool calls, usage (absent stays absent) and finish reason as a non-streamed call. Every chunk is part of
 * the one answer, whatever its class: a client that yields generic chunks (a delta without a role) has them
 * joined as the assistant's, never dropped. A model without streaming (LangChain then yields its one invoke
 * result) works unchanged. Abort is LangChain's: the signal in `options` ends the stream, and the error is thrown
 * from here.
 */
export async function streamModelCall(model: StreamingModel, input: BaseMessage[], options: Partial<RunnableConfig>, onText: (text: string) => void): Promise<AIMessage> {
  let whole: AIMessageChunk | undefined;
  let only: BaseMessage | undefined;
  let count = 0;
  for await (const chunk of await model.stream(input, options)) {
    const text = contentText(chunk.content);
    if (text) onText(text);
    if (count++ === 0) only = chunk;
    const part = asAiChunk(chunk);
    whole = whole === undefined ? part : whole.concat(part);
  }
  if (!whole) throw new Error('The model answered with an empty stream');
  // A model that can only invoke yields its whole answer once: returned as it answered.
  if (count === 1 && only && !BaseMessageChunk.isInstance(only)) return only as AIMessage;
  return asMessage(callsInIndexOrder(whole));
}

/**
 * Tool calls in the order of their `index`, as the non-streamed answer lists them: the join keeps them in the order
 * their first pieces arrived, and a server may interleave the pieces of several calls.
 */
function callsInIndexOrder(chunk: AIMessageChunk): AIMessageChunk {
  const calls = chunk.tool_call_chunks ?? [];
  const sorted = calls.map((call, at) => ({ call, at })).sort((a, b) => (a.call.index ?? a.at) - (b.call.index ?? b.at) || a.at - b.at);
  if (sorted.every((entry, at) => entry.at === at)) return chunk;
  return new AIMessageChunk({
    ...(chunk.id ? { id: chunk.id } : {}),
    ...(chunk.name ? { name: chunk.name } : {}),
    content: chunk.content,
    additional_kwargs: chunk.additional_kwargs,
    response_metadata: chunk.response_metadata,
    tool_call_chunks: sorted.map((entry) => entry.call),
    ...(chunk.usage_metadata ? { usage_metadata: chunk.usage_metadata } : {}),
  });
}

type RawToolCall = { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } };

/**
 * A chunk as the assistant's chunk. @langchain/openai makes a role-less delta a ChatMessageChunk, which keeps only
 * its text (its tool calls and id are gone before they reach here: providers.ts makes the OpenAI client read such
 * deltas as the assistant's, which is the real fix); any other chunk or message keeps what it carries, its raw
 * tool-call deltas (`additional_kwargs.tool_calls`) read as tool-call chunks.
 */
function asAiChunk(message: BaseMessage): AIMessageChunk {
  if (AIMessageChunk.isInstance(message)) return message;
  const raw = Array.isArray(message.additional_kwargs?.tool_calls) ? (message.additional_kwargs.tool_calls as RawToolCall[]) : [];
  const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
  const usage = (message as { usage_metadata?: AIMessage['usage_metadata'] }).usage_metadata;
  return new AIMessageChunk({
    ...(message.id ? { id: message.id } : {}),
    ...(message.name ? { name: message.name } : {}),
    content: message.content,
    additional_kwargs: message.additional_kwargs ?? {},
    response_metadata: message.response_metadata ?? {},
    tool_call_chunks: calls.length
      ? calls.map((c, index) => ({ type: 'tool_call_chunk' as const, index, id: c.id, name: c.name, args: JSON.stringify(c.args) }))
      : raw.map((c, i) => ({
          type: 'tool_call_chunk' as const,
          index: typeof c.index === 'number' ? c.index : i,
          ...(typeof c.id === 'string' ? { id: c.id } : {}),
          ...(typeof c.function?.name === 'string' ? { name: c.function.name } : {}),
          ...(typeof c.function?.arguments === 'string' ? { args: c.function.arguments } : {}),
        })),
    ...(usage ? { usage_metadata: usage } : {}),
  });
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
    response_metadata: withStopReason(chunk),
    tool_calls: chunk.tool_calls ?? [],
    invalid_tool_calls: chunk.invalid_tool_calls ?? [],
    ...(chunk.usage_metadata ? { usage_metadata: asReported(chunk.usage_metadata) } : {}),
  });
}

/**
 * Anthropic's stream carries the stop reason in its message_delta, which the client joins into additional_kwargs; its
 * non-streamed answer has it in response_metadata, where the model.call event reads it: copied there.
 */
function withStopReason(chunk: AIMessageChunk): Record<string, unknown> {
  const meta = chunk.response_metadata ?? {};
  const reason = chunk.additional_kwargs?.stop_reason;
  return meta.stop_reason === undefined && typeof reason === 'string' ? { ...meta, stop_reason: reason } : meta;
}

type Usage = NonNullable<AIMessage['usage_metadata']>;

/** Joining chunks adds empty token-detail objects the provider never sent: left out, the usage is as reported. */
function asReported(usage: Usage): Usage {
  const { input_token_details: input, output_token_details: output, ...counts } = usage;
  return { ...counts, ...(input && Object.keys(input).length ? { input_token_details: input } : {}), ...(output && Object.keys(output).length ? { output_token_details: output } : {}) };
}
