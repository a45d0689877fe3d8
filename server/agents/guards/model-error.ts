import 'server-only';
import crypto from 'node:crypto';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { frameworkNote } from '../provenance';
import { ensembleMeta } from '../messages';
import { modelCallErrorText } from '../model-call/error-text';

/** How a provider call failed, as far as its error tells (for the person and for a retry decision later). */
export type ModelErrorKind = 'rate_limit' | 'auth' | 'timeout' | 'provider';
export type ModelError = { message: string; kind: ModelErrorKind };

const MAX_CHARS = 2_000;

export function modelErrorKind(err: unknown): ModelErrorKind {
  const e = err as { status?: unknown; statusCode?: unknown; code?: unknown; name?: unknown } | null;
  const status = Number(e?.status ?? e?.statusCode);
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT' || status === 408) return 'timeout';
  return 'provider';
}

export function modelErrorOf(err: unknown): ModelError {
  const text = modelCallErrorText(err).trim().slice(0, MAX_CHARS);
  return { message: text || 'The model call failed', kind: modelErrorKind(err) };
}

/**
 * A failed provider call as the assistant message that ends the graph cleanly: the failure is a framework flag in
 * server meta (`additional_kwargs.ensemble.modelError`), never read from prose, so an answer that merely says
 * "Error: …" stays an answer. Its text is framework-written (note provenance, shown as a note, not as the agent
 * speaking) and it is left out of what any later model call receives (modelInputWithoutFailures).
 */
export function modelErrorMessage(error: ModelError, runId: string | undefined): AIMessage {
  return new AIMessage({
    id: `model-error:${crypto.randomUUID()}`,
    content: `The model call failed: ${error.message}`,
    tool_calls: [],
    additional_kwargs: { ensemble: { kind: 'framework_note', modelError: error, ...(runId ? { runId } : {}), provenance: frameworkNote() } },
  });
}

/** The failure a message marks, or null (only the server sets it: model responses have their meta stripped). */
export function markedModelError(message: BaseMessage | undefined): ModelError | null {
  const e = message ? (ensembleMeta(message)?.modelError as Partial<ModelError> | undefined) : undefined;
  return e && typeof e.message === 'string' ? { message: e.message, kind: (e.kind as ModelErrorKind) ?? 'provider' } : null;
}

/** What a model is sent: the thread without failure markers (they are the framework's record, not a turn). */
export const withoutFailureMarkers = (messages: readonly BaseMessage[]): BaseMessage[] => messages.filter((m) => !markedModelError(m));
