import { eq } from 'drizzle-orm';
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { POST as retryRoute } from '@/app/api/v1/teams/[id]/jobs/[jobId]/retry/route';
import { schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { cancelJob } from '@/server/teams/cancel';
import { sendRequest } from '@/server/teams/requests';
import { retryJob } from '@/server/teams/retry';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { seedRun } from '../budgets/support';
import { job } from '../support/scheduler';
import { errorText, refuseUpdate } from '../support/refuse-update';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

const send = async (ownerId: string, teamId: string, memberId: string, text = '/reply ok') =>
  (await sendRequest(ownerId, teamId, { memberIds: [memberId], text, draftKey: crypto.randomUUID() })).jobs[0]!.id;
const teamJobCount = async (teamId: string) =>
  (await statement(`select count(*) as n from jobs where team_id = ?`).get(teamId) as { n: number }).n;
const fingerprint = async (teamId: string) =>
  JSON.stringify(await statement(`select id, status, retry_of_job_id, updated_at from jobs where team_id = ? order by seq`).all(teamId)) +
  JSON.stringify(await statement(`select revision from teams where id = ?`).get(teamId));
const codeOf = async (fn: () => Promise<unknown>) => {
  try {
    await fn();
  } catch (e) {
    return { status: (e as { status?: number }).status, code: (e as { code?: string }).code, fields: (e as { fields?: unknown }).fields };
  }
  throw new Error('expected a refusal');
};

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** Run the real scheduler until these jobs settle, then stop it so later states stay put. */
async function runUntilSettled(...ids: string[]) {
  runtime = new SchedulerRuntime(teamJobs, { tickMs: 50 });
  runtime.start();
  await until(async () => (await Promise.all(ids.map(job))).every((j) => ['completed', 'failed', 'cancelled'].includes(j.status)), 10_000, 'jobs to settle');
  await runtime.drain();
  runtime = undefined;
}

describe('retry a failed or cancelled request', () => {
  it('a failed request: a new request with the same text to the same member, linked to the original', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const member = team.members[0]!.id;
    const failed = await send(owner.id, team.id, member, '/fail the provider broke');
    await runUntilSettled(failed);
    expect((await job(failed)).status).toBe('failed');

    const res = await call(retryRoute, { method: 'POST', headers: owner.auth, params: { id: team.id, jobId: failed }, body: { requestId: 'r-1' } });
    expect(res.status).toBe(201);
    const retried = res.body.job as { id: string; memberId: string; status: string; retryOf: string; text: string; sourceMemberId: string | null };
    expect(retried).toMatchObject({ memberId: member, status: 'queued', retryOf: failed, text: '/fail the provider broke', sourceMemberId: null });
    expect((await job(retried.id)).retryOfJobId).toBe(failed);
    // The original is untouched: still failed, still its own record.
    expect((await job(failed)).status).toBe('failed');

    // Idempotent: the same request id answers the same request (200), nothing new is queued.
    const count = await teamJobCount(team.id);
    const again = await call(retryRoute, { method: 'POST', headers: owner.auth, params: { id: team.id, jobId: failed }, body: { requestId: 'r-1' } });
    expect([again.status, (again.body.job as { id: string }).id]).toEqual([200, retried.id]);
    expect(await teamJobCount(team.id)).toBe(count);
  });

  it('send it to another member: a cancelled request goes to the member chosen, still linked', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const [first, second] = team.members;
    const original = await send(owner.id, team.id, first!.id, 'Summarise the plan 计划 🚀');
    await cancelJob(owner.id, team.id, original);
    const { job: sent, created } = await retryJob(owner.id, team.id, original, { requestId: 'r-2', memberId: second!.id });
    expect(created).toBe(true);
    expect(sent).toMatchObject({ memberId: second!.id, retryOf: original, text: 'Summarise the plan 计划 🚀', status: 'queued' });
    // The same id with another member is another request: refused, not silently re-routed.
    expect(await codeOf(() => retryJob(owner.id, team.id, original, { requestId: 'r-2', memberId: first!.id }))).toMatchObject({ status: 409, code: 'request_key_reused' });
    // The same id for another original is refused too.
    const other = await send(owner.id, team.id, first!.id);
    await cancelJob(owner.id, team.id, other);
    expect(await codeOf(() => retryJob(owner.id, team.id, other, { requestId: 'r-2' }))).toMatchObject({ status: 409, code: 'request_key_reused' });
  });

  it('a queued, running or completed request is refused (409 not_retryable) and nothing is queued', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const done = await send(owner.id, team.id, team.members[0]!.id);
    await runUntilSettled(done);
    expect((await job(done)).status).toBe('completed');
    const queued = await send(owner.id, team.id, team.members[1]!.id);
    const before = await teamJobCount(team.id);
    expect(await codeOf(() => retryJob(owner.id, team.id, done, { requestId: crypto.randomUUID() }))).toMatchObject({ status: 409, code: 'not_retryable' });
    expect(await codeOf(() => retryJob(owner.id, team.id, queued, { requestId: crypto.randomUUID() }))).toMatchObject({ status: 409, code: 'not_retryable' });
    await writeTx(() => statement(`update jobs set status = 'running' where id = ?`).run(queued));
    expect(await codeOf(() => retryJob(owner.id, team.id, queued, { requestId: crypto.randomUUID() }))).toMatchObject({ status: 409, code: 'not_retryable' });
    expect(await teamJobCount(team.id)).toBe(before);
  });

  it('a member of another team (or a made-up id) is a field error; nothing is queued', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const { team: otherTeam } = await makeTeam(owner.id);
    const original = await send(owner.id, team.id, team.members[0]!.id);
    await cancelJob(owner.id, team.id, original);
    const before = await teamJobCount(team.id);
    for (const memberId of [otherTeam.members[0]!.id, crypto.randomUUID()]) {
      expect(await codeOf(() => retryJob(owner.id, team.id, original, { requestId: crypto.randomUUID(), memberId }))).toMatchObject({ status: 422, fields: { memberId: expect.any(String) } });
    }
    expect(await teamJobCount(team.id)).toBe(before);
  });

  it('another owner: 404 for the team, its job and its members; nothing changes', async () => {
    const owner = await makeUser('owner');
    const stranger = await makeUser('stranger');
    const { team } = await makeTeam(owner.id);
    const { team: theirs } = await makeTeam(stranger.id);
    const original = await send(owner.id, team.id, team.members[0]!.id);
    await cancelJob(owner.id, team.id, original);
    const before = await fingerprint(team.id);
    const viaRoute = await call(retryRoute, { method: 'POST', headers: stranger.auth, params: { id: team.id, jobId: original }, body: { requestId: 'steal' } });
    expect([viaRoute.status, (viaRoute.body.error as { code: string }).code]).toEqual([404, 'not_found']);
    // Their own team id with my job id: my job is not in their team.
    expect(await codeOf(() => retryJob(stranger.id, theirs.id, original, { requestId: 'steal-2' }))).toMatchObject({ status: 404 });
    expect(await fingerprint(team.id)).toBe(before);
  });

  it('the team at its budget refuses the retry like any new request', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const original = await send(owner.id, team.id, team.members[0]!.id);
    await cancelJob(owner.id, team.id, original);
    await seedRun({ ownerId: owner.id, conversationId: team.members[1]!.conversationId!, tokens: 500, teamId: team.id });
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: 500 }).where(eq(schema.teams.id, team.id)));
    expect(await codeOf(() => retryJob(owner.id, team.id, original, { requestId: crypto.randomUUID() }))).toMatchObject({ status: 409, code: 'team_budget_reached' });
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: null }).where(eq(schema.teams.id, team.id)));
  });
});

describe('a failure in the middle', () => {
  it('the link write refused after the insert: no unlinked request is left behind, and the same id then succeeds', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const original = await send(owner.id, team.id, team.members[0]!.id);
    await cancelJob(owner.id, team.id, original);
    const before = await fingerprint(team.id);
    const lines = async () => (await statement('select count(*) as n from shared_messages where team_id = ?').get(team.id) as { n: number }).n;
    const linesBefore = await lines();
    const restore = await refuseUpdate({ name: 'refuse_link', table: 'jobs', column: 'retry_of_job_id', message: 'disk full' });
    try {
      await expect(retryJob(owner.id, team.id, original, { requestId: 'crash' }).then(() => 'no error', errorText)).resolves.toMatch(/disk full/);
    } finally {
      await restore();
    }
    // What must not happen: a request queued without its link (a retry nobody can trace) or its shared-record line.
    expect(await fingerprint(team.id)).toBe(before);
    expect(await lines()).toBe(linesBefore);
    expect(await retryJob(owner.id, team.id, original, { requestId: 'crash' })).toMatchObject({ created: true, job: { retryOf: original } });
  });
});

describe('a flood of retries', () => {
  it('100 calls with one request id make one request; distinct ids stop at the team capacity (the limit, then one past)', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const original = await send(owner.id, team.id, team.members[0]!.id);
    await cancelJob(owner.id, team.id, original);
    const same = await Promise.all(
      Array.from({ length: 100 }, () => call(retryRoute, { method: 'POST', headers: owner.auth, params: { id: team.id, jobId: original }, body: { requestId: 'one' } })),
    );
    const ids = new Set(same.map((r) => (r.body.job as { id: string }).id));
    expect(ids.size).toBe(1);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expect(same.filter((r) => r.status === 200)).toHaveLength(99);
    // 2 requests so far; fill to 99, then the 100th (the limit) is accepted and the 101st is refused.
    for (let i = await teamJobCount(team.id); i < 99; i++) await retryJob(owner.id, team.id, original, { requestId: `fill-${i}` });
    expect((await retryJob(owner.id, team.id, original, { requestId: 'at-limit' })).created).toBe(true);
    expect(await teamJobCount(team.id)).toBe(100);
    expect(await codeOf(() => retryJob(owner.id, team.id, original, { requestId: 'one-past' }))).toMatchObject({ status: 409, code: 'team_capacity' });
    expect(await teamJobCount(team.id)).toBe(100);
  });
});
