import 'server-only';
import { EventEmitter } from 'node:events';

export type DelegationEventMap = {
  /** A child's row finished (completed, failed or cancelled). */
  finished: [{ delegationId: string; parentRunId: string }];
  /** A parent that lent its slot was admitted again (delegation_wait 'ready' → null). */
  resumed: [{ runId: string }];
};

// One emitter per process, shared by every copy of this module (route bundles, instrumentation).
const g = globalThis as unknown as { __ensembleDelegationEvents?: EventEmitter<DelegationEventMap> };

/** In-process signals the waiting `task` calls listen to (the durable truth is the ledger; see wait.ts). */
export function delegationEvents(): EventEmitter<DelegationEventMap> {
  if (!g.__ensembleDelegationEvents) {
    g.__ensembleDelegationEvents = new EventEmitter<DelegationEventMap>();
    g.__ensembleDelegationEvents.setMaxListeners(0);
  }
  return g.__ensembleDelegationEvents;
}
