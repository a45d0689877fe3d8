import 'server-only';
import type { RunnableConfig } from '@langchain/core/runnables';
import { runEventCaptureEnabled } from './capture-switch';

/** Which run a graph step belongs to and the thread its events are saved with. */
export type RunIds = { runId: string; threadId: string };

/**
 * The run of a step, from the server-owned run context the executor puts in `configurable.ensemble` (never from
 * anything a model wrote). Undefined outside a run (a graph read for inspection) or while capture is off: then
 * nothing is recorded and no event is even built.
 */
export function runIdsOf(config: RunnableConfig | undefined): RunIds | undefined {
  if (!runEventCaptureEnabled()) return undefined;
  const runId = (config?.configurable?.ensemble as { runId?: unknown } | undefined)?.runId;
  const threadId = config?.configurable?.thread_id;
  return typeof runId === 'string' && typeof threadId === 'string' ? { runId, threadId } : undefined;
}
