import 'server-only';
import type { BatchPort } from '@/server/scheduler/batch-port';
import { registerToolGroup } from '@/server/agents/tools/registry';
import { admitItem, expireItem, finalizeItem, launchItem } from './items';
import { notifyEndedBatches } from './notify';
import { batchTools } from './tool';

/** Plug batches into the run core: the `batch` tool group (`batch_task`). Idempotent, like registerDelegation. */
export function registerBatches(): void {
  registerToolGroup('batch', batchTools);
}

/** The batch domain's side of the scheduler (server/scheduler/batch-port.ts), wired in by start-up. */
export const batchPort: BatchPort = {
  prepare: registerBatches,
  admitItem,
  launchItem,
  finalizeItem: (id) => finalizeItem(id),
  expireItem,
  notifyEnded: notifyEndedBatches,
};
