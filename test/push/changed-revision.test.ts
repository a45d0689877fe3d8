import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import * as mentionsRoute from '@/app/api/v1/conversations/[id]/mentions/route';
import { createConversation } from '@/server/agents/conversations';
import { wait } from '@/server/agents/runs';
import { getDb, schema } from '@/server/db';
import { respondToJob } from '@/server/teams/answers';
import { cancelJob } from '@/server/teams/cancel';
import { admitJob, finalizeJob, launchJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { publishState } from '@/server/teams/state';
import { call, makeAgents, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';

/*
 * Every change the activity view shows stamps exactly the jobs it changed with the team's new revision
 * (activity?since reads them). No scheduler here: each step is taken by hand, so each stamp is checked on its own.
 */
const revision = async (teamId: string) => (await getDb().select().from(schema.teams).where(eq(schema.teams.id, teamId)))[0]!.revision;
const row = async (id: string) => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const jobsOf = async (teamId: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId));

/** Admit, launch and finalize one job, as the scheduler would. */
async function drive(jobId: string) {
  expect(await admitJob(jobId)).toBe(true);
  await launchJob(jobId);
  const runId = (await row(jobId)).runId;
  expect(runId).toBeTruthy();
  await wait(runId!, 10_000);
  await finalizeJob(jobId);
}

describe('changed_revision', () => {
  it('stamps queued, admitted, finished (with its receipt), answered and cancelled jobs, and no others', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const [m1, m2] = team.members;
    const bystander = (await sendRequest(alice.id, team.id, { memberIds: [m2!.id], text: 'wait here', draftKey: 'by' })).jobs[0]!;
    const bystanderStamp = await revision(team.id);
    expect((await row(bystander.id)).changedRevision).toBe(bystanderStamp);

    // Queued from a conversation (so the result comes back as a receipt), then admitted.
    const [solo] = await makeAgents(alice.id, ['Solo']);
    const conversation = await createConversation(alice.id, solo!.id);
    const sent = await call(mentionsRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      // The run takes a moment, so its own end (which changes the team too) can't land before the launch is checked.
      body: { memberIds: [m1!.id], text: '/sleep 500\n/reply done', messageKey: 'm1' },
      params: { id: conversation.id },
    });
    expect(sent.status).toBe(201);
    const mentioned = (sent.body.jobs as Array<{ jobId: string }>)[0]!.jobId;
    expect((await row(mentioned)).changedRevision).toBe(await revision(team.id));
    expect(await admitJob(mentioned)).toBe(true);
    expect((await row(mentioned)).changedRevision).toBe(await revision(team.id));

    // Its run stored: a change of its own (the card's Steps and the Runs page's bar need the run), announced.
    const admittedAt = await revision(team.id);
    await launchJob(mentioned);
    expect((await row(mentioned)).runId).toBeTruthy();
    expect(await revision(team.id)).toBe(admittedAt + 1);
    expect((await row(mentioned)).changedRevision).toBe(await revision(team.id));

    // Finished: the job and its new receipt carry the finishing revision.
    await wait((await row(mentioned)).runId!, 10_000);
    await finalizeJob(mentioned);
    const finished = await row(mentioned);
    expect(finished.status).toBe('completed');
    const receipt = (await jobsOf(team.id)).find((j) => j.kind === 'receipt')!;
    expect(receipt.parentId).toBe(mentioned);
    expect([finished.changedRevision, receipt.changedRevision]).toEqual([await revision(team.id), await revision(team.id)]);

    // The receipt then runs on its own. The request's card shows the receipt's status, so each of the receipt's
    // changes stamps the request too: `since` must never answer with the receipt and leave its request stale.
    expect(await admitJob(receipt.id)).toBe(true);
    expect([(await row(receipt.id)).changedRevision, (await row(mentioned)).changedRevision]).toEqual([await revision(team.id), await revision(team.id)]);
    await launchJob(receipt.id);
    await wait((await row(receipt.id)).runId!, 10_000);
    await finalizeJob(receipt.id);
    expect((await row(receipt.id)).status).toBe('completed');
    expect([(await row(receipt.id)).changedRevision, (await row(mentioned)).changedRevision]).toEqual([await revision(team.id), await revision(team.id)]);
    expect((await row(bystander.id)).changedRevision).toBe(bystanderStamp);

    // Waiting for an answer, then answered.
    const asking = (await sendRequest(alice.id, team.id, { memberIds: [m1!.id], text: '/ask Which format?', draftKey: 'ask' })).jobs[0]!;
    await drive(asking.id);
    expect(await row(asking.id)).toMatchObject({ status: 'waiting_input', changedRevision: await revision(team.id) });
    const beforeAnswer = (await row(finished.id)).changedRevision;
    await respondToJob(alice.id, team.id, asking.id, { answer: 'Plain text', answerKey: 'a1' });
    expect(await row(asking.id)).toMatchObject({ status: 'resuming', changedRevision: await revision(team.id) });
    expect((await row(finished.id)).changedRevision).toBe(beforeAnswer);

    // Cancelled while queued.
    await cancelJob(alice.id, team.id, bystander.id);
    expect(await row(bystander.id)).toMatchObject({ status: 'cancelled', changedRevision: await revision(team.id) });
    expect((await row(asking.id)).changedRevision).toBeLessThan(await revision(team.id));
  });

  it('bumps the revision but stamps no job for a write that changes none (a state entry)', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const job = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: 'x', draftKey: 'x' })).jobs[0]!;
    const stamped = await revision(team.id);
    await publishState({ teamId: team.id, memberId: member.id, conversationId: member.conversationId!, jobId: null }, { requestId: 'r1', kind: 'plan', title: 'Plan', content: 'Steps' });
    expect(await revision(team.id)).toBe(stamped + 1);
    expect((await row(job.id)).changedRevision).toBe(stamped);
  });
});
