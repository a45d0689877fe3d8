import 'server-only';
import type { BaseMessage } from '@langchain/core/messages';

/** Finished runs whose final messages are kept until their finalize step takes them. */
const KEPT_RUNS = 256;

const g = globalThis as unknown as { __ensembleFinalMessages?: Map<string, readonly BaseMessage[]> };
const kept = (g.__ensembleFinalMessages ??= new Map());

/**
 * A run's final messages, as its executor read them to decide the outcome, so the step that finalizes the run's job
 * reads them from here instead of the checkpoint again (docs/performance.md, "A cheaper job"). Bounded: the oldest
 * go first, and a finalize that finds nothing (after a restart, or evicted) reads the checkpoint instead.
 */
export function keepFinalMessages(runId: string, messages: readonly BaseMessage[]): void {
  kept.delete(runId);
  kept.set(runId, messages);
  if (kept.size > KEPT_RUNS) kept.delete(kept.keys().next().value!);
}

/** The run's kept final messages, once (taking them forgets them); undefined when none are kept. */
export function takeFinalMessages(runId: string): readonly BaseMessage[] | undefined {
  const messages = kept.get(runId);
  kept.delete(runId);
  return messages;
}
