import 'server-only';
import type { Delegation } from '@/server/db/schema';
import { cancelRun } from '../runs';
import { cancelledResult } from './result';
import { childrenOf, finishChild, isUnfinished } from './ledger';

/**
 * Stop one child: queued (or admitted but not started) → cancelled here; running → its run is asked to stop, and its
 * finish records the delegation's result (port.finalizeChild). Never waits for the run.
 */
export async function stopChildRow(row: Delegation): Promise<void> {
  if (!isUnfinished(row.status)) return;
  if (!row.childRunId) {
    await finishChild(row.id, 'cancelled', cancelledResult(row, null), 'The delegating run stopped before this child started');
    return;
  }
  await cancelRun(row.childRunId, { waitMs: 0 });
}

/** Cancelling a parent cancels its children (each child's own children follow when its run ends the same way). */
export async function cancelChildrenOf(parentRunId: string): Promise<void> {
  for (const row of await childrenOf(parentRunId)) if (isUnfinished(row.status)) await stopChildRow(row);
}
