import 'server-only';
import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { StopReason } from '@/lib/types/stop-reason';
import type { RunIds } from '../observe/run-ids';
import type { GraphAgent, RunContext } from '../run-types';

/**
 * A guard that looks at each model response before any of its tool calls run (graph.ts callModel applies every
 * guard in responseGuards() order, after server meta is stripped). A guard may remove tool calls and end the turn
 * early; it says why with a stopReason, which is stored on the message's server meta
 * (`additional_kwargs.ensemble.stopReason`) so the run's outcome reads it back from the checkpoint, and with a
 * visible note (framework text, never the model's or a person's) that the agent and the person both see.
 */
export type ResponseGuardInput = {
  message: AIMessage;
  /** The thread so far, without `message`. */
  messages: readonly BaseMessage[];
  agent: GraphAgent;
  context: RunContext;
  /** Undefined outside a recorded run (inspection, capture off). */
  run: RunIds | undefined;
};

export type ResponseGuardVerdict = {
  /** The response to keep (its tool calls possibly removed). */
  message: AIMessage;
  stopReason?: StopReason;
  /** Framework text shown to the agent (its next input) and to the person, e.g. "Delegation limit reached". */
  note?: string;
};

export interface ResponseGuard {
  readonly name: string;
  /** Null: nothing to do. */
  check(input: ResponseGuardInput): ResponseGuardVerdict | null | Promise<ResponseGuardVerdict | null>;
}
