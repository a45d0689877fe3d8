import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { POST as cancelAllRoute } from '@/app/api/v1/teams/[id]/cancel-all/route';
import { writeTx } from '@/server/db';
import { statement, type Param } from '@/server/db/statement';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { cancelJob } from '@/server/teams/cancel';
import { cancelAllJobs } from '@/server/teams/cancel-all';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { job } from '../support/scheduler';
import { errorText, refuseUpdate } from '../support/refuse-update';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

const send = async (ownerId: string, teamId: string, memberId: string, text = '/reply ok') =>
  (await sendRequest(ownerId, teamId, { memberIds: [memberId], text, draftKey: crypto.randomUUID() })).jobs[0]!.id;
const sql = (text: string, ...args: Param[]) => writeTx(() => statement(text).run(...args));

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

/** A team with one job in each state cancel treats differently, built the same way twice. */
async function teamInEveryState(ownerId: string) {
  const { team } = await makeTeam(ownerId, ['A', 'B', 'C']);
  const [a, b, c] = team.members;
  const running = await send(ownerId, team.id, a!.id);
  expect(await admitJob(running)).toBe(true);
  const behind = await send(ownerId, team.id, a!.id);
  const waiting = await send(ownerId, team.id, b!.id);
  await sql(`update jobs set status = 'waiting_input', waiting = ? where id = ?`, JSON.stringify({ type: 'clarification', question: 'Which?', questionId: 'q' }), waiting);
  const queued = await send(ownerId, team.id, c!.id);
  const done = await send(ownerId, team.id, c!.id);
  await sql(`update jobs set status = 'completed', result = 'fine' where id = ?`, done);
  return { team, ids: [running, behind, waiting, queued, done] };
}

/** What a job's cancel leaves behind, without ids or times: its status and its shared-record lines. */
async function trace(teamId: string, ids: string[]) {
  const out = [];
  for (const id of ids) {
    out.push({
      status: (await job(id)).status,
      lines: await statement(`select kind, sender_label as sender, text from shared_messages where team_id = ? and job_id = ? order by seq`).all(teamId, id),
    });
  }
  return out;
}

describe('cancel all pending requests of a team', () => {
  it('equals cancelling one by one: the same statuses, the same shared-record lines, the same answers', async () => {
    const owner = await makeUser('owner');
    const one = await teamInEveryState(owner.id);
    const all = await teamInEveryState(owner.id);

    const singly = [];
    for (const id of one.ids) singly.push(await cancelJob(owner.id, one.team.id, id));
    const revisionBefore = (await statement('select revision from teams where id = ?').get(all.team.id) as { revision: number }).revision;
    const bulk = await cancelAllJobs(owner.id, all.team.id);

    expect(await trace(all.team.id, all.ids)).toEqual(await trace(one.team.id, one.ids));
    // The bulk answer lists each unfinished job (the completed one was not pending) as cancelling it alone answered.
    const strip = (j: { status: string; text?: string }) => ({ status: j.status, text: j.text });
    expect(bulk.jobs.map((j) => j.id)).toEqual(all.ids.slice(0, 4));
    expect(bulk.jobs.map(strip)).toEqual(singly.slice(0, 4).map(strip));
    expect(bulk.jobs.map((j) => j.status)).toEqual(['cancelling', 'cancelled', 'cancelled', 'cancelled']);
    // One step: one revision bump for everything it changed.
    const revisionAfter = (await statement('select revision from teams where id = ?').get(all.team.id) as { revision: number }).revision;
    expect(revisionAfter).toBe(revisionBefore + 1);
    // What must not happen: the finished job changes.
    expect(await job(all.ids[4]!)).toMatchObject({ status: 'completed', result: 'fine' });
  });

  it('a running job is stopped for real: its run ends and the job is recorded cancelled', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const slow = await send(owner.id, team.id, team.members[0]!.id, '/sleep 20000\n/reply late');
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 50 });
    runtime.start();
    await until(async () => (await job(slow)).status === 'running' && (await job(slow)).runId, 10_000, 'the job to run');
    const res = await call(cancelAllRoute, { method: 'POST', headers: owner.auth, params: { id: team.id } });
    expect(res.status).toBe(200);
    expect((res.body.jobs as Array<{ id: string; status: string }>).map((j) => [j.id, j.status])).toEqual([[slow, 'cancelling']]);
    await until(async () => (await job(slow)).status === 'cancelled', 10_000, 'the cancel to finish');
    const run = await statement('select status from runs where id = ?').get((await job(slow)).runId) as { status: string };
    expect(run.status).toBe('cancelled');
  });

  it('again (nothing left), or on a team with no work: an empty answer and no revision bump', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    await send(owner.id, team.id, team.members[0]!.id);
    expect((await cancelAllJobs(owner.id, team.id)).jobs).toHaveLength(1);
    const revision = async () => (await statement('select revision from teams where id = ?').get(team.id) as { revision: number }).revision;
    const before = await revision();
    expect(await cancelAllJobs(owner.id, team.id)).toEqual({ jobs: [] });
    expect(await revision()).toBe(before);
  });

  it('another owner: 404, and none of the team\'s jobs change', async () => {
    const owner = await makeUser('owner');
    const stranger = await makeUser('stranger');
    const { team } = await makeTeam(owner.id);
    const queued = await send(owner.id, team.id, team.members[0]!.id);
    const before = JSON.stringify(await statement('select id, status, updated_at from jobs where team_id = ?').all(team.id));
    const res = await call(cancelAllRoute, { method: 'POST', headers: stranger.auth, params: { id: team.id } });
    expect([res.status, (res.body.error as { code: string }).code]).toEqual([404, 'not_found']);
    expect(JSON.stringify(await statement('select id, status, updated_at from jobs where team_id = ?').all(team.id))).toBe(before);
    expect((await job(queued)).status).toBe('queued');
  });

  it('a failure in the middle (the database refuses the third job) changes nothing: one step, all or none', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await send(owner.id, team.id, team.members[i % 2]!.id));
    const snapshot = async () =>
      JSON.stringify([
        await statement('select id, status, updated_at from jobs where team_id = ? order by seq').all(team.id),
        await statement('select count(*) as n from shared_messages where team_id = ?').get(team.id),
        await statement('select revision from teams where id = ?').get(team.id),
      ]);
    const before = await snapshot();
    const restore = await refuseUpdate({ name: 'refuse_third', table: 'jobs', id: ids[2]!, message: 'disk full' });
    try {
      await expect(cancelAllJobs(owner.id, team.id).then(() => 'no error', errorText)).resolves.toMatch(/disk full/);
    } finally {
      await restore();
    }
    // What must not happen: the first two cancelled and the rest left queued.
    expect(await snapshot()).toBe(before);
    expect((await cancelAllJobs(owner.id, team.id)).jobs.map((j) => j.status)).toEqual(ids.map(() => 'cancelled'));
  });

  it('a flood of 40 requests is cancelled in one step, and another team of the same owner is untouched', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const { team: other } = await makeTeam(owner.id);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await send(owner.id, team.id, team.members[i % 2]!.id));
    const keep = await send(owner.id, other.id, other.members[0]!.id);
    const { jobs } = await cancelAllJobs(owner.id, team.id);
    expect(jobs.map((j) => j.id)).toEqual(ids);
    expect((await Promise.all(ids.map(job))).every((j) => j.status === 'cancelled')).toBe(true);
    expect((await job(keep)).status).toBe('queued');
  });
});
