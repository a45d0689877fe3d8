import 'server-only';
import type { BaseMessage } from '@langchain/core/messages';
import type { Provenance } from '@/lib/types/provenance';

/**
 * Who wrote a human message's task text, set by the server where the message is built (never parsed from text):
 * 'person' for the owner's own words (a chat message, a team request from the composer or an @mention, a
 * clarification answer), 'member' for anything an agent wrote (a send_member request, a returned result).
 */
export type MessageAuthor = 'person' | 'member';

/**
 * Provenance the runtime attaches to every human message it writes (additional_kwargs.ensemble).
 * `taskText` is the text a person or sender wrote when the content also holds framework preamble/context.
 */
export type EnsembleMessageMeta = {
  runId: string;
  taskText?: string;
  kind?: string;
  author?: MessageAuthor;
  /** Set only where the server builds the message (server/agents/provenance.ts); returned as Message.provenance. */
  provenance?: Provenance;
  [key: string]: unknown;
};

/** The server meta of a message (additional_kwargs.ensemble), when it has one. */
export function ensembleMeta(message: BaseMessage): EnsembleMessageMeta | undefined {
  const meta = message.additional_kwargs?.ensemble;
  return meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as EnsembleMessageMeta) : undefined;
}
