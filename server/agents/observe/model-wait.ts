import 'server-only';
import type { CapacityWait } from '@/server/providers/capacity/provider-calls';
import { writeRunEvent } from './record';
import type { RunIds } from './run-ids';

/**
 * Record that a model call waits for room at its provider, and why (a `model.wait` event). Written at once, not
 * with the step, so the Steps show the wait while it lasts: the thread's queued events go first, keeping their
 * order. A step redone after a crash may record its wait a second time.
 */
export async function recordModelWait(run: RunIds | undefined, model: string, wait: CapacityWait): Promise<void> {
  if (!run) return;
  const why =
    wait.reason === 'queue'
      ? { ahead: wait.ahead }
      : wait.reason === 'concurrency'
        ? { inFlight: wait.inFlight, max: wait.max }
        : { perMinute: wait.perMinute };
  await writeRunEvent(run.runId, run.threadId, { type: 'model.wait', model, reason: wait.reason, ...why }).catch((err) =>
    console.error(`[run-events] could not record a provider wait of run ${run.runId}`, err),
  );
}
