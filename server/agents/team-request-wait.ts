import 'server-only';
import type { WaitingTeamRequest } from '@/lib/types/conversation';
import type { Run } from '@/server/db/schema';
import { statement } from '@/server/db/statement';
import { conflict } from '@/server/http/errors';

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
