import { afterEach, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { getDb, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { cancelJob } from '@/server/teams/cancel';
import { getActivity } from '@/server/teams/activity';
import { createTeam } from '@/server/teams/teams';
import { makeUser } from '../support/users';
import { makeAgents, makeTeam } from '../support/teams';
import { until } from '../support/wait';

const db = () => getDb();
const job = async (id: string) => (await db().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const done = (ids: string[]) =>
  until(async () => {
    const rows = await db().select().from(schema.jobs).where(inArray(schema.jobs.id, ids));
    return rows.length === ids.length && rows.every((r) => ['completed', 'failed', 'cancelled'].includes(r.status)) && rows;
  }, 15_000, 'jobs to finish');

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
});

describe('scheduler runtime', () => {
  it('a blocked step in team A never delays team B, nor A’s own send, cancel and feed', async () => {
    const alice = await makeUser('alice');
    const a = (await makeTeam(alice.id)).team;
    const b = (await makeTeam(alice.id)).team;
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 20 });
    runtime.start();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    void runtime.worker(a.id).run('held by a slow call', () => gate);

    const aJob = (await sendRequest(alice.id, a.id, { memberIds: [a.members[0]!.id], text: '/reply from A', draftKey: 'a1' })).jobs[0]!;
    const bJob = (await sendRequest(alice.id, b.id, { memberIds: [b.members[0]!.id], text: '/reply from B', draftKey: 'b1' })).jobs[0]!;
    const [finishedB] = await done([bJob.id]);
    expect(finishedB!.result).toBe('from B');
    // Team A is admitted but its worker is still held: its launch has not run.
    expect(await job(aJob.id)).toMatchObject({ status: 'running', runId: null });
    // Creating, sending, reading and cancelling in team A answer at once (they never wait for its worker).
    const more = (await sendRequest(alice.id, a.id, { memberIds: [a.members[1]!.id], text: '/reply second', draftKey: 'a2' })).jobs[0]!;
    expect(await getActivity(alice.id, a.id, { limit: 20, offset: 0, details: false })).toMatchObject({ totalJobs: 2 });
    expect((await cancelJob(alice.id, a.id, more.id)).status).toMatch(/cancelled|cancelling/);
    const agents = await makeAgents(alice.id, ['New1', 'New2']);
    expect((await createTeam(alice.id, { requestId: 'r-new', name: 'New', goal: 'g', agentIds: agents.map((x) => x.id) })).team.status).toBe('ready');
    release();
    const [finishedA] = await done([aJob.id]);
    expect(finishedA!.result).toBe('from A');
  });

  it('rotates owners one admission each as a single slot frees up', async () => {
    const owners = await Promise.all(['ann', 'ben', 'cat'].map((n) => makeUser(n)));
    const teams = [];
    for (const o of owners) teams.push((await makeTeam(o.id, ['A', 'B', 'C'])).team);
    // Queue everything before the runtime starts: ann's three jobs first, then ben's, then cat's.
    const ids: string[] = [];
    for (const [i, o] of owners.entries()) {
      for (const [k, m] of teams[i]!.members.entries()) {
        ids.push((await sendRequest(o.id, teams[i]!.id, { memberIds: [m.id], text: `/reply ${o.name}${k}`, draftKey: `k${k}` })).jobs[0]!.id);
      }
    }
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 20, maxActive: 1 });
    runtime.start();
    const rows = await done(ids);
    const order = rows.sort((x, y) => x.admittedAt!.getTime() - y.admittedAt!.getTime() || x.seq - y.seq).map((r) => r.ownerId);
    const names = new Map(owners.map((o) => [o.id, o.name]));
    expect(order.map((id) => names.get(id))).toEqual(['ann', 'ben', 'cat', 'ann', 'ben', 'cat', 'ann', 'ben', 'cat']);
  });

  it('never admits more than the capacity however many wakes overlap', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B', 'C', 'D', 'E', 'F']);
    const ids: string[] = [];
    for (const [i, m] of team.members.entries()) ids.push((await sendRequest(alice.id, team.id, { memberIds: [m.id], text: '/sleep 150\n/reply ok', draftKey: `w${i}` })).jobs[0]!.id);
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 5, maxActive: 2 });
    runtime.start();
    let peak = 0;
    const sample = setInterval(async () => {
      for (let i = 0; i < 20; i++) runtime?.wake();
      const n = await statement(`select count(*) as n from jobs where status in ('running','cancelling')`).get() as { n: number };
      peak = Math.max(peak, n.n);
    }, 2);
    try {
      await done(ids);
    } finally {
      clearInterval(sample);
    }
    expect(peak).toBe(2);
    expect(runtime.stats.admissions).toBe(6);
  });

  it('caps a result at 6,000 UTF-8 bytes without splitting a character', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B', 'C', 'D']);
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 20 });
    runtime.start();
    const cases = ['🤖'.repeat(1500), '🤖'.repeat(1500) + 'a', '研'.repeat(2000), '研'.repeat(2000) + 'a'];
    const ids: string[] = [];
    for (const [i, reply] of cases.entries()) ids.push((await sendRequest(alice.id, team.id, { memberIds: [team.members[i]!.id], text: `/reply ${reply}`, draftKey: `c${i}` })).jobs[0]!.id);
    const rows = await done(ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const [exactEmoji, overEmoji, exactCjk, overCjk] = ids.map((id) => byId.get(id)!);
    expect(exactEmoji).toMatchObject({ result: cases[0], resultTruncated: false });
    expect(overEmoji).toMatchObject({ result: '🤖'.repeat(1500), resultTruncated: true });
    expect(exactCjk).toMatchObject({ result: cases[2], resultTruncated: false });
    expect(overCjk).toMatchObject({ result: '研'.repeat(2000), resultTruncated: true });
    expect(Buffer.byteLength(overCjk!.result!)).toBeLessThanOrEqual(6000);
  });
});
