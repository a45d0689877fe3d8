import 'server-only';
import { AIMessage } from '@langchain/core/messages';
import { contentText } from '../messages';

/**
 * The same response with its tool calls removed: text only. Provider-specific copies of the calls go too
 * (additional_kwargs.tool_calls / function_call, tool_use blocks in array content), so no later request to the
 * provider carries a call without its result.
 */
export function withoutToolCalls(message: AIMessage): AIMessage {
  const { tool_calls: _calls, function_call: _fn, ...kwargs } = message.additional_kwargs ?? {};
  return new AIMessage({
    ...(message.id ? { id: message.id } : {}),
    content: contentText(message.content),
    additional_kwargs: kwargs,
    response_metadata: message.response_metadata ?? {},
    ...(message.usage_metadata ? { usage_metadata: message.usage_metadata } : {}),
    tool_calls: [],
  });
}
