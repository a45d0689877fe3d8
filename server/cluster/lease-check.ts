import 'server-only';
import { statement } from '@/server/db/statement';
import { currentFence, LeaseLostError } from './fence';

// Postgres only (a fence exists only with several processes): every team write of a step asks it once.
const leaseHolds = statement(`select 1 as ok from team_leases where team_id = ? and process_id = ? and epoch = ? and expires_at > now()`);

/**
 * Inside a team's scheduler step, refuse the write (LeaseLostError rolls the transaction back) unless this process
 * still holds the team's lease at the step's epoch. Read in the writing transaction: under SERIALIZABLE a takeover
 * committing meanwhile makes one of the two retry, so a step never commits after the new holder took over.
 * Outside a step (a person's request, a run's tool call) there is nothing to check.
 */
export async function assertStepLease(teamId: string): Promise<void> {
  const fence = currentFence(teamId);
  if (!fence) return;
  if (!(await leaseHolds.get(fence.teamId, fence.processId, fence.epoch))) throw new LeaseLostError(fence);
}
