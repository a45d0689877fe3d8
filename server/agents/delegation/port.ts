import 'server-only';
import { isRunActive } from '@/lib/types/conversation';
import type { DelegationPort } from '@/server/scheduler/delegation-port';
import { findRun } from '../run-store';
import { stopChildRow } from './cancel';
import { launchChild } from './launch';
import { registerDelegation } from './register';
import { admitChildRow, finishChild, findDelegation, isUnfinished, readmitParentRun } from './ledger';
import { cancelledResult, childOutcome } from './result';

/** Delegation's side of the scheduler (server/scheduler/delegation-port.ts), wired in by start-up. */
export const delegationPort: DelegationPort = {
  prepare: registerDelegation,
  admitChild: admitChildRow,
  launchChild,
  async finalizeChild(id, signal) {
    const row = await findDelegation(id);
    if (!row || !isUnfinished(row.status) || !row.childRunId) return;
    const run = await findRun(row.childRunId);
    if (!run) {
      await finishChild(id, 'cancelled', cancelledResult(row, null), 'The child run is missing');
      return;
    }
    if (isRunActive(run.status)) return;
    const outcome = await childOutcome(row, run);
    signal.throwIfAborted();
    await finishChild(id, outcome.status, outcome.result, outcome.error);
  },
  async stopChild(id) {
    const row = await findDelegation(id);
    if (row) await stopChildRow(row);
  },
  readmitParent: readmitParentRun,
};
