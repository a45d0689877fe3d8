import 'server-only';
import type { BaseMessageChunk } from '@langchain/core/messages';
import { ChatOpenAICompletions, type OpenAIClient } from '@langchain/openai';

/**
 * Chat Completions with every streamed delta read as the assistant's until one names its role. The wire format
 * lets a server leave `role` out of every delta (a stream only ever carries the assistant's answer); the client
 * then makes generic ChatMessageChunks, which drop the delta's tool calls and id, so no join downstream could get
 * them back. Defaulting the role where the delta is read keeps text, tool calls, id and metadata: the fix belongs
 * here, not in the join. (The hook is the one ChatOpenAI exposes for this: `fields.completions` takes the instance;
 * test/model-call guards it against a client update that stops calling it.)
 */
export class AssistantDeltaCompletions extends ChatOpenAICompletions {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the client's own signature
  protected override _convertCompletionsDeltaToBaseMessageChunk(delta: Record<string, any>, rawResponse: OpenAIClient.Chat.Completions.ChatCompletionChunk, defaultRole?: OpenAIClient.Chat.ChatCompletionRole): BaseMessageChunk {
    return super._convertCompletionsDeltaToBaseMessageChunk(delta, rawResponse, defaultRole ?? 'assistant');
  }
}
