import { signIn } from '../support/action-session';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';

const actions = await import('@/app/(app)/teams/actions');
const { cancelJob } = await import('@/server/teams/cancel');
const { sendRequest } = await import('@/server/teams/requests');
const { job } = await import('../support/scheduler');
const { makeTeam } = await import('../support/teams');
const { makeUser } = await import('../support/users');

const send = async (ownerId: string, teamId: string, memberId: string) =>
  (await sendRequest(ownerId, teamId, { memberIds: [memberId], text: 'Draft the notes', draftKey: crypto.randomUUID() })).jobs[0]!.id;

describe('the steer actions: the same doors as the API', () => {
  it('retryJobAction retries (or sends to another member) idempotently; refusals come back as the API words them', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const original = await send(alice.id, team.id, team.members[0]!.id);
    signIn(alice);
    // Still queued: refused with the API's code, nothing made.
    expect(await actions.retryJobAction(team.id, original, { requestId: 'a' })).toMatchObject({ ok: false, error: { code: 'not_retryable' } });
    await cancelJob(alice.id, team.id, original);
    const first = await actions.retryJobAction(team.id, original, { requestId: 'a', memberId: team.members[1]!.id });
    expect(first).toMatchObject({ ok: true, data: { job: { retryOf: original, memberId: team.members[1]!.id, status: 'queued' } } });
    const again = await actions.retryJobAction(team.id, original, { requestId: 'a', memberId: team.members[1]!.id });
    expect(again.ok && first.ok && again.data.job.id === first.data.job.id).toBe(true);
    // Fields a browser may not set are refused by the route's own strict schema.
    expect(await actions.retryJobAction(team.id, original, { requestId: 'b', text: 'other text' })).toMatchObject({ ok: false, error: { code: 'validation_error' } });
  });

  it('cancelAllJobsAction cancels every pending job of the team and answers each', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const ids = [await send(alice.id, team.id, team.members[0]!.id), await send(alice.id, team.id, team.members[1]!.id)];
    signIn(alice);
    const result = await actions.cancelAllJobsAction(team.id);
    expect(result).toMatchObject({ ok: true, data: { jobs: ids.map((id) => ({ id, status: 'cancelled' })) } });
    expect((await Promise.all(ids.map(job))).map((j) => j.status)).toEqual(['cancelled', 'cancelled']);
  });

  it('another owner: not_found from both, and nothing of alice\'s changes', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { team } = await makeTeam(alice.id);
    const queued = await send(alice.id, team.id, team.members[0]!.id);
    const cancelled = await send(alice.id, team.id, team.members[1]!.id);
    await cancelJob(alice.id, team.id, cancelled);
    signIn(bob);
    expect(await actions.cancelAllJobsAction(team.id)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await actions.retryJobAction(team.id, cancelled, { requestId: 'x' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((await job(queued)).status).toBe('queued');
    expect((await job(cancelled)).status).toBe('cancelled');
  });
});
