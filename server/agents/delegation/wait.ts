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
 * Rejects when `signal` aborts (the parent was cancelled, timed out or suspended), or when the ledger can't be read.
 * The durable state is the ledger: events only say when to look again, so a waiter that starts after a restart finds
 * the same answer. One look at a time: an event during a look makes it look once more.
 */
export function awaitChild(delegationId: string, parentRunId: string, signal: AbortSignal | undefined): Promise<Delegation> {
  return new Promise((resolve, reject) => {
    const events = delegationEvents();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    let looking = false;
    let again = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      events.off('finished', onEvent);
      events.off('resumed', onEvent);
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      finish();
    };
    async function check(): Promise<void> {
      if (settled) return;
      if (looking) {
        again = true;
        return;
      }
      looking = true;
      try {
        do {
          again = false;
          const row = await findDelegation(delegationId);
          if (settled) return;
          if (!row) return settle(() => reject(new Error(`Delegation ${delegationId} is missing`)));
          if (!isUnfinished(row.status) && (await parentWait(parentRunId)) === null) return settle(() => resolve(row));
        } while (again && !settled);
        if (settled) return;
        clearTimeout(timer);
        timer = setTimeout(onEvent, RECHECK_MS);
        timer.unref?.();
      } catch (error) {
        settle(() => reject(error));
      } finally {
        looking = false;
      }
    }
    // check() never rejects (a failed read settles the waiter), so nothing is left floating.
    const onEvent = () => void check();
    function onAbort() {
      settle(() => reject(new ParentStoppedError(signal?.reason)));
    }
    if (signal?.aborted) return onAbort();
    events.on('finished', onEvent);
    events.on('resumed', onEvent);
    signal?.addEventListener('abort', onAbort, { once: true });
    onEvent();
  });
}
