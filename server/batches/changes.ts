import 'server-only';
import { afterCommit } from '@/server/db';
import { pushBus } from '@/server/push/bus';

/**
 * Announce that a batch changed once the current write commits (never after a rollback; outside a transaction, at
 * once): its event stream re-reads the counts. Several notes of one transaction each announce: a stream merges them.
 */
export function batchChanged(ownerId: string, batchId: string): void {
  afterCommit(() => {
    pushBus().emit('batch', { ownerId, batchId });
  });
}
