import 'server-only';
import { afterCommit } from '@/server/db';
import { statement } from '@/server/db/statement';
import { wakeScheduler } from '@/server/scheduler/signal';

/*
 * A `batch_task` call with `wait: true` from a run that holds a scheduler slot (a team job's run, a delegated child)
 * lends that slot while it waits, as a waiting `task` parent does (ADR 047): through the same column,
 * runs.delegation_wait. 'waiting': the scheduler counts no slot for it (server/scheduler/view.ts); 'ready': its batch
 * ended, and the scheduler admits it again like a `task` parent whose children finished (the delegation port's
 * readmitParent, 'ready' → null); the waiting call returns once it is null. Otherwise many waiting callers could hold
 * every slot while the items they wait for queue behind them.
 */

// Only a run holding its slot (null) starts lending: one already lending ('waiting') goes on; one 'ready' to be
// admitted again is left to its readmission, after which it holds its slot while it waits (as before this).
const lend = statement(`update runs set delegation_wait = 'waiting' where id = ? and delegation_wait is null and status in ('pending','running')`);

// Ready again only when nothing else it lends for is open: no unfinished `task` child, no other waited-for batch.
const ready = statement(
  `update runs set delegation_wait = 'ready'
    where id = ? and delegation_wait = 'waiting'
      and not exists (select 1 from delegations d where d.parent_run_id = runs.id and d.status in ('queued','running'))
      and not exists (select 1 from batches b where b.parent_run_id = runs.id and b.notify = 'wait' and b.status in ('running','cancelling'))`,
);

const waitOf = statement(`select delegation_wait as "wait" from runs where id = ?`);

/** Inside the transaction that creates the waited-for batch. */
export async function lendCallerSlot(runId: string): Promise<void> {
  await lend.run(runId);
}

/** Inside the transaction that ended a batch: its waiting caller may be admitted again (the scheduler is woken). */
export async function returnCallerSlot(batch: { notify: string; parentRunId: string | null }): Promise<void> {
  if (batch.notify !== 'wait' || !batch.parentRunId) return;
  if ((await ready.run(batch.parentRunId)) > 0) afterCommit(wakeScheduler);
}

/** Whether the run holds its slot (again): null, or it never lent one. */
export async function holdsSlot(runId: string): Promise<boolean> {
  const row = await waitOf.get<{ wait: string | null }>(runId);
  return !row?.wait;
}
