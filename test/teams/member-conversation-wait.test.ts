import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listConversationItems } from '@/server/agents/conversation-list';
import { getState, resume, start } from '@/server/agents/runs';
import { AppError } from '@/server/http/errors';
import { respondToJob } from '@/server/teams/answers';
import { cancelJob } from '@/server/teams/cancel';
import { cancelAllJobs } from '@/server/teams/cancel-all';
import { subscribeConversation } from '@/server/push/bus';
import { sendRequest } from '@/server/teams/requests';
import { makeUser } from '../support/users';
import { makeTeam } from '../support/teams';
import { job, settled, withScheduler } from '../support/scheduler';
import { until } from '../support/wait';

withScheduler();

const key = () => ({ idempotencyKey: crypto.randomUUID() });
const errorOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};
const codeOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return { status: (err as AppError).status, code: (err as AppError).code };
};

/** A team whose first member stops its request on an approval; the person is offered the member's conversation too. */
async function waitingApproval(name: string) {
  const owner = await makeUser(name);
  const { team } = await makeTeam(owner.id, ['Calc', 'Other'], { approvalTools: ['calculator'] });
  const member = team.members[0]!;
  const j = (await sendRequest(owner.id, team.id, { memberIds: [member.id], text: '/call calculator {"expression":"6*7"}', draftKey: 'c' })).jobs[0]!;
  expect((await settled(j.id)).status).toBe('waiting_input');
  return { owner, team, member, conversationId: member.conversationId!, jobId: j.id };
}

describe("a team request waiting on its member's conversation", () => {
  it('is answered on the team only: the conversation points there and refuses a resume or a message meanwhile', async () => {
    const { owner, team, conversationId, jobId } = await waitingApproval('ann');
    const state = await getState(owner.id, conversationId);
    expect(state.teamRequest).toEqual({ teamId: team.id, teamName: team.name, jobId });
    expect((await listConversationItems(owner.id)).find((c) => c.id === conversationId)?.activity).toBe('waiting_for_you');

    // What must not happen: the conversation continuing while the request still waits (it could never be answered).
    expect(await codeOf(resume(owner.id, conversationId, { approved: true }, key()))).toEqual({ status: 409, code: 'team_request_waiting' });
    expect(await codeOf(start(owner.id, conversationId, { text: '/reply sideways' }, key()))).toEqual({ status: 409, code: 'team_request_waiting' });
    expect((await job(jobId)).status).toBe('waiting_input');
    // Another owner is told nothing about it.
    const stranger = await makeUser('stranger');
    expect(await codeOf(resume(stranger.id, conversationId, { approved: true }, key()))).toEqual({ status: 404, code: 'not_found' });

    // Answered on the team: it runs to the end, and the conversation is the person's again.
    await respondToJob(owner.id, team.id, jobId, { response: { approved: true }, answerKey: 'ok' });
    const done = await settled(jobId);
    expect(done.status).toBe('completed');
    expect(done.result).toContain('[calculator] 42');
    expect((await getState(owner.id, conversationId)).teamRequest).toBeNull();
    expect((await start(owner.id, conversationId, { text: '/reply mine now' }, key())).created).toBe(true);
  });

  it('cancelled while it waits, it no longer holds the conversation or shows as waiting for you', async () => {
    const { owner, team, conversationId, jobId } = await waitingApproval('bea');
    await cancelJob(owner.id, team.id, jobId);
    expect((await job(jobId)).status).toBe('cancelled');
    // Its run stops waiting too (checkpoints are kept): recorded cancelled, the interrupt kept to say what was cancelled.
    const state = await getState(owner.id, conversationId);
    expect(state.run).toMatchObject({ status: 'cancelled', interrupt: { type: 'approval', tool: 'calculator' } });
    expect(state.teamRequest).toBeNull();
    expect((await listConversationItems(owner.id)).find((c) => c.id === conversationId)?.activity).toBeNull();
    // The conversation is the person's again: a new message starts a run.
    expect((await start(owner.id, conversationId, { text: '/reply mine now' }, key())).created).toBe(true);
  });

  it('after Cancel all, an answer to the cancelled approval is refused in words that say so, in the chat and on the team', async () => {
    const { owner, team, conversationId, jobId } = await waitingApproval('cid');
    const conversationChanges: string[][] = [];
    const unsubscribe = subscribeConversation(conversationId, (change) => conversationChanges.push(change.runIds));
    try {
      await cancelAllJobs(owner.id, team.id);
      const state = await getState(owner.id, conversationId);
      // The conversation's stream is told, so an open chat drops the prompt without a reload.
      await until(() => conversationChanges.some((runs) => runs.includes(state.run!.id)), 5_000, 'the conversation change to be pushed');
    } finally {
      unsubscribe();
    }
    expect((await job(jobId)).status).toBe('cancelled');
    const state = await getState(owner.id, conversationId);
    expect(state.run?.status).toBe('cancelled');

    const refused = await errorOf(resume(owner.id, conversationId, { approved: true }, key()));
    expect(refused).toMatchObject({ status: 409, code: 'not_waiting' });
    expect(refused.message).toBe(
      'This approval was cancelled with its team request: there is nothing to approve or decline any more. Retry the request on the team’s page to ask again.',
    );
    const onTeam = await errorOf(respondToJob(owner.id, team.id, jobId, { response: { approved: true }, answerKey: 'late' }));
    expect(onTeam).toMatchObject({ status: 409, code: 'not_waiting', message: 'This request was cancelled: there is nothing to answer any more. Retry it to ask again.' });
    // Nothing ran: the conversation's newest run is still the cancelled one, and the request stays cancelled.
    expect((await getState(owner.id, conversationId)).run?.id).toBe(state.run!.id);
    expect((await job(jobId)).status).toBe('cancelled');
    // Another owner learns nothing of it.
    const stranger = await makeUser('stranger2');
    expect(await codeOf(resume(stranger.id, conversationId, { approved: true }, key()))).toEqual({ status: 404, code: 'not_found' });
  });
});
