import 'server-only';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseMessage, BaseMessageChunk } from '@langchain/core/messages';
import type { ChatGenerationChunk } from '@langchain/core/outputs';
import { ChatOpenAICompletions, type OpenAIClient } from '@langchain/openai';
import { IncompleteStreamError } from './incomplete-stream';

/**
 * Chat Completions as the model call needs it from servers that are not OpenAI's (the hook: ChatOpenAI takes this
 * instance as `fields.completions`; test/model-call guards both overrides against a client update that stops
 * calling them).
 *
 * - Every streamed delta is the assistant's until one names its role. The wire format lets a server leave `role`
 *   out of every delta (a stream only ever carries the assistant's answer); the client then makes generic
 *   ChatMessageChunks, which drop the delta's tool calls and id, so no join downstream could get them back.
 *   Defaulting the role where the delta is read keeps text, tool calls, id and metadata.
 * - A stream that ends without any finish reason was cut (a proxy closing the connection cleanly mid-answer): the
 *   client would return the part as the whole answer. It is an IncompleteStreamError instead, retried like a reset.
 */
export class OpenAiCompletions extends ChatOpenAICompletions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the client's own signature
  protected override _convertCompletionsDeltaToBaseMessageChunk(delta: Record<string, any>, rawResponse: OpenAIClient.Chat.Completions.ChatCompletionChunk, defaultRole?: OpenAIClient.Chat.ChatCompletionRole): BaseMessageChunk {
    return super._convertCompletionsDeltaToBaseMessageChunk(delta, rawResponse, defaultRole ?? 'assistant');
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    let finished = false;
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      if (chunk.generationInfo?.finish_reason != null) finished = true;
      yield chunk;
    }
    if (!finished && !options.signal?.aborted) throw new IncompleteStreamError();
  }
}
