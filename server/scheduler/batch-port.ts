import 'server-only';

/**
 * What the scheduler needs from durable batches (ADR 059). Like JobPort and DelegationPort the scheduler owns this
 * interface and never imports the batch domain: server/batches/port.ts implements it and start-up hands it in.
 * Planning reads `batches` and `batch_items` directly (./view.ts); the port carries only the steps that change them.
 * Every step is fenced by the item's lease, so running one twice (two processes, a relaunch) records once.
 */
export interface BatchPort {
  /** Called once when a runtime starts, before it launches anything (the batch tool group and run-end hooks). */
  prepare(): void;
  /** queued → running under a new lease, inside the pass's transaction; false when no longer admissible. */
  admitItem(itemId: string): Promise<boolean>;
  /** Start (or find, by its run key) the admitted item's run; a refusal before the model runs releases the lease. */
  launchItem(itemId: string, signal: AbortSignal): Promise<void>;
  /** Record the outcome of the item's finished run (done, or an attempt spent). */
  finalizeItem(itemId: string, signal: AbortSignal): Promise<void>;
  /** The item's lease expired before its run was recorded: the attempt is spent. */
  expireItem(itemId: string, lease: number): Promise<void>;
  /** Ended batches whose calling run still waits for its end message: send it. */
  notifyEnded(signal: AbortSignal): Promise<void>;
}
