import 'server-only';
import { EventEmitter } from 'node:events';

/**
 * A batch reached its end (completed or cancelled) in this process: `batch_task` calls waiting on it look again, and
 * the calling run's message is sent (./notify.ts, registered at start-up). Another process's batch end reaches this
 * one through the push bus's 'batch' kind, which waiters also follow.
 */
const g = globalThis as unknown as { __ensembleBatchEnds?: EventEmitter<{ ended: [string] }> };

export function batchEnds(): EventEmitter<{ ended: [string] }> {
  if (!g.__ensembleBatchEnds) {
    g.__ensembleBatchEnds = new EventEmitter<{ ended: [string] }>();
    g.__ensembleBatchEnds.setMaxListeners(0);
  }
  return g.__ensembleBatchEnds;
}

export function batchEnded(batchId: string): void {
  batchEnds().emit('ended', batchId);
}
