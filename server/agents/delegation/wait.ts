import 'server-only';
import type { Delegation } from '@/server/db/schema';
import { delegationEvents } from './events';
import { findDelegation, isUnfinished, parentWait } from './ledger';

/** How often a waiter re-reads the ledger in case an event was missed (a finish recorded by another module copy). */
const RECHECK_MS = 1_000;

export class ParentStoppedError extends Error {
  constructor(readonly reason: unknown) {
    super('The delegating run stopped while it waited on its child');
    this.name = 'ParentStoppedError';
  }
}

/**
 * Resolve with the child's finished row once the child has finished AND the parent holds a slot again (a parent
 * that lent its slot continues only after the scheduler admitted it again; one that holds none continues at once).
 * Rejects when `signal` aborts (the parent was cancelled, timed out or suspended). The durable state is the ledger:
 * events only say when to look again, so a waiter that starts after a restart finds the same answer.
 */
export function awaitChild(delegationId: string, parentRunId: string, signal: AbortSignal | undefined): Promise<Delegation> {
  return new Promise((resolve, reject) => {
    const events = delegationEvents();
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      events.off('finished', check);
      events.off('resumed', check);
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    };
    function check() {
      const row = findDelegation(delegationId);
      if (!row) {
        cleanup();
        reject(new Error(`Delegation ${delegationId} is missing`));
        return;
      }
      if (!isUnfinished(row.status) && parentWait(parentRunId) === null) {
        cleanup();
        resolve(row);
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(check, RECHECK_MS);
      timer.unref?.();
    }
    function onAbort() {
      cleanup();
      reject(new ParentStoppedError(signal?.reason));
    }
    if (signal?.aborted) return onAbort();
    events.on('finished', check);
    events.on('resumed', check);
    signal?.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
