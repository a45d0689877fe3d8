import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { WaitingTeamRequest } from '@/lib/types/conversation';
import { schema, type Db } from '@/server/db';
import type { Run } from '@/server/db/schema';
import { statement } from '@/server/db/statement';
import { conflict } from '@/server/http/errors';
import { noteConversationChange } from '@/server/push/conversation-changes';

/*
 * A team request stopped on a question or an approval waits on its member conversation's newest run. Only the team's
 * page answers it (POST /teams/:id/jobs/:jobId/respond): an answer given in the conversation itself would continue
 * the thread while the request still waited, and the request could then never be answered (its run is no longer the
 * conversation's newest). So the conversation points there, and a person's message or resume in it is refused until
 * the request is answered or cancelled.
 */

const waitingJobOfRun = statement(
  `select j.id as "jobId", j.team_id as "teamId", t.name as "teamName" from jobs j join teams t on t.id = j.team_id
   where j.run_id = ? and j.status in ('waiting_input', 'resuming') limit 1`,
);

/**
 * The team request waiting on this run (the conversation's newest), or null: still waiting for the person, or answered
 * and waiting for a slot to continue (its answer is on its way: nobody else may continue the thread meanwhile).
 * Inside writeTx it reads the transaction.
 */
export async function waitingTeamRequest(run: Pick<Run, 'id' | 'status' | 'teamId'> | null | undefined): Promise<WaitingTeamRequest | null> {
  if (!run || run.status !== 'interrupted' || run.teamId === null) return null;
  return (await waitingJobOfRun.get<WaitingTeamRequest>(run.id)) ?? null;
}

export const teamRequestWaiting = (request: WaitingTeamRequest) =>
  conflict('team_request_waiting', `A request from the team “${request.teamName}” waits on this conversation: answer it (or cancel it) on the team’s page`);

/**
 * A team request cancelled while its run waited (on a question or an approval, or answered and waiting for a slot),
 * or a batch cancelled while its items' runs waited (server/batches/waits.ts): the run stops waiting too, recorded
 * `cancelled` with its interrupt kept (what was cancelled), so its conversation no longer offers an answer nobody will
 * read — live, through the conversation's push stream once the caller's transaction commits — and a late answer is
 * refused (cancelledWait; a batch item's, answerItem). Only a run still `interrupted` changes: safe to run twice. Its checkpoints are kept: the thread goes on with the next message, the unanswered call given a
 * placeholder result like any dangling one.
 */
export async function endCancelledWait(tx: Db, run: { id: string; conversationId: string }): Promise<void> {
  const ended = await tx
    .update(schema.runs)
    .set({ status: 'cancelled' })
    .where(and(eq(schema.runs.id, run.id), eq(schema.runs.status, 'interrupted')))
    .returning({ id: schema.runs.id });
  if (ended.length) noteConversationChange(run.conversationId, run.id);
}

/** An answer to a wait its team request's cancel ended (endCancelledWait): refused in words that say so. */
export const cancelledWait = (interrupt: unknown) =>
  conflict(
    'not_waiting',
    (interrupt as { type?: unknown } | null)?.type === 'approval'
      ? 'This approval was cancelled with its team request: there is nothing to approve or decline any more. Retry the request on the team’s page to ask again.'
      : 'What this conversation waited for was cancelled with its team request: there is nothing to answer any more.',
  );
