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
const revision = (teamId: string) => getDb().select().from(schema.teams).where(eq(schema.teams.id, teamId)).get()!.revision;
const row = (id: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)).get()!;
const jobsOf = (teamId: string) => getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId)).all();

/** Admit, launch and finalize one job, as the scheduler would. */
async function drive(jobId: string) {
  expect(admitJob(jobId)).toBe(true);
  await launchJob(jobId);
  const runId = row(jobId).runId;
  expect(runId).toBeTruthy();
  await wait(runId!, 10_000);
  await finalizeJob(jobId);
}

describe('changed_revision', () => {
  it('stamps queued, admitted, finished (with its receipt), answered and cancelled jobs, and no others', async () => {
    const alice = await makeUser('alice');
    const { team } = makeTeam(alice.id);
    const [m1, m2] = team.members;
    const bystander = sendRequest(alice.id, team.id, { memberIds: [m2!.id], text: 'wait here', draftKey: 'by' }).jobs[0]!;
    const bystanderStamp = revision(team.id);
    expect(row(bystander.id).changedRevision).toBe(bystanderStamp);

    // Queued from a conversation (so the result comes back as a receipt), then admitted.
    const [solo] = makeAgents(alice.id, ['Solo']);
    const conversation = createConversation(alice.id, solo!.id);
    const sent = await call(mentionsRoute.POST, {
      method: 'POST',
      headers: alice.auth,
      body: { memberIds: [m1!.id], text: '/reply done', messageKey: 'm1' },
      params: { id: conversation.id },
    });
    expect(sent.status).toBe(201);
    const mentioned = (sent.body.jobs as Array<{ jobId: string }>)[0]!.jobId;
    expect(row(mentioned).changedRevision).toBe(revision(team.id));
    expect(admitJob(mentioned)).toBe(true);
    expect(row(mentioned).changedRevision).toBe(revision(team.id));

    // Its run stored: a change of its own (the card's Steps and the Runs page's bar need the run), announced.
    const admittedAt = revision(team.id);
    await launchJob(mentioned);
    expect(row(mentioned).runId).toBeTruthy();
    expect(revision(team.id)).toBe(admittedAt + 1);
    expect(row(mentioned).changedRevision).toBe(revision(team.id));

    // Finished: the job and its new receipt carry the finishing revision.
    await wait(row(mentioned).runId!, 10_000);
    await finalizeJob(mentioned);
    const finished = row(mentioned);
    expect(finished.status).toBe('completed');
    const receipt = jobsOf(team.id).find((j) => j.kind === 'receipt')!;
    expect(receipt.parentId).toBe(mentioned);
    expect([finished.changedRevision, receipt.changedRevision]).toEqual([revision(team.id), revision(team.id)]);

    // The receipt then runs on its own. The request's card shows the receipt's status, so each of the receipt's
    // changes stamps the request too: `since` must never answer with the receipt and leave its request stale.
    expect(admitJob(receipt.id)).toBe(true);
    expect([row(receipt.id).changedRevision, row(mentioned).changedRevision]).toEqual([revision(team.id), revision(team.id)]);
    await launchJob(receipt.id);
    await wait(row(receipt.id).runId!, 10_000);
    await finalizeJob(receipt.id);
    expect(row(receipt.id).status).toBe('completed');
    expect([row(receipt.id).changedRevision, row(mentioned).changedRevision]).toEqual([revision(team.id), revision(team.id)]);
    expect(row(bystander.id).changedRevision).toBe(bystanderStamp);

    // Waiting for an answer, then answered.
    const asking = sendRequest(alice.id, team.id, { memberIds: [m1!.id], text: '/ask Which format?', draftKey: 'ask' }).jobs[0]!;
    await drive(asking.id);
    expect(row(asking.id)).toMatchObject({ status: 'waiting_input', changedRevision: revision(team.id) });
    const beforeAnswer = row(finished.id).changedRevision;
    respondToJob(alice.id, team.id, asking.id, { answer: 'Plain text', answerKey: 'a1' });
    expect(row(asking.id)).toMatchObject({ status: 'resuming', changedRevision: revision(team.id) });
    expect(row(finished.id).changedRevision).toBe(beforeAnswer);

    // Cancelled while queued.
    cancelJob(alice.id, team.id, bystander.id);
    expect(row(bystander.id)).toMatchObject({ status: 'cancelled', changedRevision: revision(team.id) });
    expect(row(asking.id).changedRevision).toBeLessThan(revision(team.id));
  });

  it('bumps the revision but stamps no job for a write that changes none (a state entry)', async () => {
    const alice = await makeUser('alice');
    const { team } = makeTeam(alice.id);
    const member = team.members[0]!;
    const job = sendRequest(alice.id, team.id, { memberIds: [member.id], text: 'x', draftKey: 'x' }).jobs[0]!;
    const stamped = revision(team.id);
    publishState({ teamId: team.id, memberId: member.id, conversationId: member.conversationId!, jobId: null }, { requestId: 'r1', kind: 'plan', title: 'Plan', content: 'Steps' });
    expect(revision(team.id)).toBe(stamped + 1);
    expect(row(job.id).changedRevision).toBe(stamped);
  });
});
