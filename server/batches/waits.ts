import 'server-only';
import type { Db } from '@/server/db';
import { tieBreakText } from '@/server/db/dialect';
import { statement, type Statement } from '@/server/db/statement';
import { endCancelledWait } from '@/server/agents/team-request-wait';

/*
 * An item's run that stopped on a question or an approval stays its hidden conversation's newest run, `interrupted`,
 * until an answer continues it. Once the item's batch is cancelled nothing will: the item answers 409 and a person
 * can't continue its conversation (delegated_conversation). So the cancel ends those waits in its own transaction
 * (endCancelledWait: the run `cancelled`, its interrupt kept to say what was cancelled, the conversation's stream
 * told), and no run is left waiting on a person who can neither see nor answer it.
 */

/** The newest run (framework notes aside) of each not-done item conversation of a batch, when it is interrupted. */
const waitingRunsSql = (oneItem: boolean) =>
  `select r.id as "id", r.conversation_id as "conversationId" from batch_items i
     join runs r on r.conversation_id = i.conversation_id and r.status = 'interrupted'
   where i.batch_id = ? and i.status <> 'done'${oneItem ? ' and i.id = ?' : ''}
     and not exists (select 1 from runs n where n.conversation_id = r.conversation_id and n.kind <> 'note'
       and (n.created_at > r.created_at or (n.created_at = r.created_at and n.${tieBreakText('id')} > r.${tieBreakText('id')})))`;

// Built on first use: the tie-break column depends on the engine.
const statements: { batch?: Statement; item?: Statement } = {};
const waitingRuns = (itemId?: string) =>
  itemId === undefined ? (statements.batch ??= statement(waitingRunsSql(false))) : (statements.item ??= statement(waitingRunsSql(true)));

/**
 * End the wait of every item conversation of a cancelled batch (or of one of its items) whose newest run still waits
 * on a person: a waiting item's run, an answered item's whose resume had not started, a failed item's whose resume was
 * refused, a running item's whose run stopped for the person as the cancel committed. An older interrupted run,
 * answered by the run after it, is history and stays as it is. Inside the caller's transaction; safe to run twice
 * (only a run still `interrupted` changes). Answers how many waits it ended.
 */
export async function endWaitsOfCancelledBatch(tx: Db, batchId: string, itemId?: string): Promise<number> {
  const runs = await waitingRuns(itemId).all<{ id: string; conversationId: string }>(...(itemId === undefined ? [batchId] : [batchId, itemId]));
  for (const run of runs) await endCancelledWait(tx, run);
  return runs.length;
}
