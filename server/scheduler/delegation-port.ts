import 'server-only';

/**
 * What the scheduler needs from delegation (the `task` tool's children). Like JobPort, the scheduler owns this
 * interface and never imports the delegation domain: server/agents/delegation/port.ts implements it and start-up
 * hands it to startScheduler(). Planning reads the durable ledger (`delegations`) and `runs.delegation_wait`
 * directly (./view.ts); the port carries only the steps that change them.
 *
 * Two kinds of admission share the owner-fair planner with team jobs:
 * - a queued child (a `delegations` row) takes a slot, its run is started on its hidden conversation;
 * - a parent that waited on its children (delegation_wait 'ready') takes its slot back and continues.
 */
export interface DelegationPort {
  /**
   * Called once when a runtime starts, before it launches anything, like JobPort.prepare: delegation plugs into the
   * run core (its tool group, guard and child-run hook), so a child the scheduler launches runs as delegation says.
   */
  prepare(): void;
  /** queued → running for a child whose parent is still active, in one transaction; false when no longer admissible. */
  admitChild(delegationId: string): Promise<boolean>;
  /** Start (or find, by its run key) the admitted child's run; safe to repeat after a crash or a timeout. */
  launchChild(delegationId: string, signal: AbortSignal): Promise<void>;
  /** Record the outcome of the child's finished run as the delegation's result (and wake its parent's waiters). */
  finalizeChild(delegationId: string, signal: AbortSignal): Promise<void>;
  /** The parent is gone (finished, cancelled): a queued child is cancelled, a running one's run is stopped. */
  stopChild(delegationId: string, signal: AbortSignal): Promise<void>;
  /** 'ready' → null for a parent whose children have all finished; false when it was not ready. */
  readmitParent(runId: string): Promise<boolean>;
}
