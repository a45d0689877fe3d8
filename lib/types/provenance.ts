/**
 * Server-owned provenance of a message in a conversation: what it is and who produced it. Set only by the server
 * where the message is built (additional_kwargs.ensemble.provenance); stripped from anything a request body or a
 * model supplies. The API returns it as Message.provenance; the conversation view shows it as a small label.
 */
export type ContentKind =
  | 'person_message'
  | 'team_request'
  | 'receipt'
  | 'shared_context'
  | 'clarification_answer'
  | 'mention'
  | 'note'
  | 'compaction'
  | 'delegated_task'
  | 'assistant'
  | 'tool_result';

export type Producer =
  | { type: 'person' }
  /** memberId is null only for a request checkpointed before provenance was recorded (its sender's id was not kept). */
  | { type: 'member'; memberId: string | null; name: string }
  | { type: 'agent' }
  | { type: 'framework' };

export type Provenance = {
  contentKind: ContentKind;
  producer: Producer;
  /** Who the framework acted for or about, for the label (e.g. "receipt from Review"): a member's name. */
  about?: string;
  /**
   * Where a tool result came from when it came from outside the app: an MCP tool's logical origin,
   * `mcp:<server>/<tool>`, a fetched page's `web:<host>`, or a search's `web-search:<provider>` (never a path, a
   * query or a credential). Taken from the tool message's artifact, which only the server's tool code writes.
   */
  origin?: string;
};
