import 'server-only';
import crypto from 'node:crypto';
import type { AIMessage } from '@langchain/core/messages';

/**
 * The message with an id the server assigned. A provider's completion id is not an identity here: servers reuse them,
 * and the thread's reducer replaces a message whose id it already holds, so a reused id would overwrite an earlier
 * answer. The provider's id is kept as metadata only (`response_metadata.provider_message_id`).
 */
export function withServerId(message: AIMessage): AIMessage {
  const providerId = message.id;
  // lc_kwargs is what a message serializes from (the checkpoint): kept in step with the fields.
  message.id = crypto.randomUUID();
  message.lc_kwargs.id = message.id;
  if (providerId) {
    message.response_metadata = { ...message.response_metadata, provider_message_id: providerId };
    message.lc_kwargs.response_metadata = message.response_metadata;
  }
  return message;
}
