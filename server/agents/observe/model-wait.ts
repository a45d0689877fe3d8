import 'server-only';
import type { CapacityWait } from '@/server/providers/capacity/provider-calls';
import { journalRunEvent } from './record';
import type { RunIds } from './run-ids';

/** Record that a model call waits for room at its provider, and why (a `model.wait` event of the step). */
export function recordModelWait(run: RunIds | undefined, model: string, wait: CapacityWait): void {
  if (!run) return;
  const why =
    wait.reason === 'queue'
      ? { ahead: wait.ahead }
      : wait.reason === 'concurrency'
        ? { inFlight: wait.inFlight, max: wait.max }
        : { perMinute: wait.perMinute };
  journalRunEvent(run.runId, run.threadId, { type: 'model.wait', model, reason: wait.reason, ...why });
}
