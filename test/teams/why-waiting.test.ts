import { eq } from 'drizzle-orm';
import crypto from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { schema, writeTx } from '@/server/db';
import { statement, type Param } from '@/server/db/statement';
import { SchedulerRuntime } from '@/server/scheduler/runtime';
import { loadSchedulingView } from '@/server/scheduler/view';
import { whyWaiting } from '@/server/scheduler/why-waiting';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { teamWaitReasons } from '@/server/teams/wait-reasons';
import { GET as waitingRoute } from '@/app/api/v1/teams/[id]/waiting/route';
import { waitReasonLabel } from '@/lib/wait-reason-label';
import { seedRun } from '../budgets/support';
import { job } from '../support/scheduler';
import { call, makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

async function request(ownerId: string, teamId: string, memberId: string, text = '/reply ok') {
  return (await sendRequest(ownerId, teamId, { memberIds: [memberId], text, draftKey: crypto.randomUUID() })).jobs[0]!.id;
}
const sql = (text: string, ...args: Param[]) => writeTx(() => statement(text).run(...args));

let runtime: SchedulerRuntime | undefined;
afterEach(async () => {
  await runtime?.drain();
  runtime = undefined;
  // Other files' work never leaks into "ahead" counts: each test starts from no unfinished jobs.
  await sql(`update jobs set status = 'cancelled' where status in ('queued','running','waiting_input','resuming','cancelling')`);
});

describe('why a queued job waits, from real scheduler states', () => {
  it('waiting for a free slot: n ahead follows the owner-fair rotation, not the seq order', async () => {
    const a = await makeUser('a');
    const b = await makeUser('b');
    const { team: teamA } = await makeTeam(a.id, ['One', 'Two', 'Three']);
    const { team: teamB } = await makeTeam(b.id);
    const a1 = await request(a.id, teamA.id, teamA.members[0]!.id);
    const a2 = await request(a.id, teamA.id, teamA.members[1]!.id);
    const b1 = await request(b.id, teamB.id, teamB.members[0]!.id);
    const a3 = await request(a.id, teamA.id, teamA.members[2]!.id);

    const forA = (await teamWaitReasons(a.id, teamA.id)).reasons;
    // A's first, then B's first (a new owner takes its turn), then A's second and third.
    expect(forA[a1]).toEqual({ kind: 'slot', ahead: 0 });
    expect(forA[a2]).toEqual({ kind: 'slot', ahead: 2 });
    expect(forA[a3]).toEqual({ kind: 'slot', ahead: 3 });
    expect((await teamWaitReasons(b.id, teamB.id)).reasons).toEqual({ [b1]: { kind: 'slot', ahead: 1 } });
    // What must not happen: another owner's job ids appear in A's answer.
    expect(Object.keys(forA).sort()).toEqual([a1, a2, a3].sort());
    expect(waitReasonLabel(forA[a2]!)).toBe('Waiting for a free slot (2 ahead of it)');
    expect(waitReasonLabel(forA[a1]!)).toBe('Waiting for a free slot (next in line)');

    // Admitting the head: it no longer waits. Read with the rotation the runtime holds after serving A (A had its
    // turn this round), B's job goes first and A's wait one more.
    expect(await admitJob(a1)).toBe(true);
    const view = await loadSchedulingView();
    const after = whyWaiting(view, { due: [], served: [a.id] }, new Set([a1, a2, a3, b1]));
    expect(after.get(a1)).toBeUndefined();
    expect(after.get(b1)).toEqual({ kind: 'slot', ahead: 0 });
    expect(after.get(a2)).toEqual({ kind: 'slot', ahead: 1 });
    expect(after.get(a3)).toEqual({ kind: 'slot', ahead: 2 });
  });

  it('behind an earlier request to this member (running or queued head), and the label says so', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const member = team.members[0]!.id;
    const head = await request(owner.id, team.id, member);
    const second = await request(owner.id, team.id, member);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[second]).toEqual({ kind: 'behind', jobId: head });
    expect(await admitJob(head)).toBe(true);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[second]).toEqual({ kind: 'behind', jobId: head });
    expect(waitReasonLabel({ kind: 'behind', jobId: head })).toBe('Behind an earlier request to this member');
  });

  it('waiting for your answer: the member asked the person something on an earlier request', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const member = team.members[0]!.id;
    const asking = await request(owner.id, team.id, member, '/ask Which colour?');
    runtime = new SchedulerRuntime(teamJobs, { tickMs: 50 });
    runtime.start();
    await until(async () => (await job(asking)).status === 'waiting_input', 10_000, 'the question');
    await runtime.drain();
    runtime = undefined;
    const later = await request(owner.id, team.id, member);
    const reasons = (await teamWaitReasons(owner.id, team.id)).reasons;
    expect(reasons[later]).toEqual({ kind: 'your_answer', jobId: asking });
    // The waiting job itself is not queued: it needs an answer, not a slot.
    expect(reasons[asking]).toBeUndefined();
  });

  it('team budget reached: the head and the jobs behind it say so (they would be held next)', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const head = await request(owner.id, team.id, team.members[0]!.id);
    const behind = await request(owner.id, team.id, team.members[0]!.id);
    expect(await admitJob(head)).toBe(true);
    const other = await request(owner.id, team.id, team.members[1]!.id);
    await seedRun({ ownerId: owner.id, conversationId: team.members[1]!.conversationId!, tokens: 1_000, teamId: team.id });
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: 1_000 }).where(eq(schema.teams.id, team.id)));
    const reasons = (await teamWaitReasons(owner.id, team.id)).reasons;
    expect(reasons[other]).toEqual({ kind: 'team_budget' });
    expect(reasons[behind]).toEqual({ kind: 'team_budget' });
    // The scheduler's own view agrees: the held head is not a candidate.
    expect((await loadSchedulingView()).queues.flatMap((q) => q.candidates.map((c) => c.jobId))).not.toContain(other);
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: null }).where(eq(schema.teams.id, team.id)));
    expect((await teamWaitReasons(owner.id, team.id)).reasons[other]).toEqual({ kind: 'slot', ahead: 0 });
  });

  it('team not ready: a team left half-created admits nothing and every queued job says why', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const queued = await request(owner.id, team.id, team.members[0]!.id);
    await sql(`update teams set status = 'creating' where id = ?`, team.id);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[queued]).toEqual({ kind: 'team_not_ready' });
    expect(waitReasonLabel({ kind: 'team_not_ready' })).toMatch(/^Team not ready/);
  });

  it('a member busy in its own conversation (a direct run) holds its queued head', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const queued = await request(owner.id, team.id, team.members[0]!.id);
    const runId = await seedRun({ ownerId: owner.id, conversationId: team.members[0]!.conversationId!, tokens: 0 });
    await sql(`update runs set status = 'running' where id = ?`, runId);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[queued]).toEqual({ kind: 'member_busy' });
    await sql(`update runs set status = 'success' where id = ?`, runId);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[queued]).toEqual({ kind: 'slot', ahead: 0 });
  });

  it('a running job whose model call waits for its provider says so; an expired wait, a finished call and another team’s wait do not', async () => {
    const owner = await makeUser('owner');
    const other = await makeUser('other');
    const { team } = await makeTeam(owner.id);
    const { team: theirs } = await makeTeam(other.id);
    const running = async (ownerId: string, t: typeof team, i: number) => {
      const id = await request(ownerId, t.id, t.members[i]!.id);
      const runId = await seedRun({ ownerId, conversationId: t.members[i]!.conversationId!, tokens: 0 });
      await sql(`update jobs set status = 'running', run_id = ? where id = ?`, runId, id);
      return { id, runId };
    };
    const waiting = await running(owner.id, team, 0);
    const calling = await running(owner.id, team, 1);
    const foreign = await running(other.id, theirs, 0);
    const now = Date.now();
    const call = (runId: string, state: 'waiting' | 'running', expiresAt: number) =>
      ({ id: crypto.randomUUID(), providerKey: 'openai (default)', runId, state, queuedAt: now, startedAt: state === 'running' ? now : null, expiresAt });
    await writeTx((tx) => tx.insert(schema.providerCalls).values([call(waiting.runId, 'waiting', now + 60_000), call(calling.runId, 'running', now + 60_000), call(foreign.runId, 'waiting', now + 60_000)]));
    const reasons = (await teamWaitReasons(owner.id, team.id)).reasons;
    expect(reasons[waiting.id]).toEqual({ kind: 'provider' });
    expect(waitReasonLabel(reasons[waiting.id]!)).toBe('Waiting for the model provider — its limit on calls at once or per minute is reached');
    // Must not happen: a call in flight read as waiting, or another owner's job in this team's answer.
    expect(reasons[calling.id]).toBeUndefined();
    expect(Object.keys(reasons)).not.toContain(foreign.id);
    expect((await teamWaitReasons(other.id, theirs.id)).reasons[foreign.id]).toEqual({ kind: 'provider' });
    // A wait whose lease ran out (its process died) no longer holds the job.
    await sql(`update provider_calls set expires_at = ? where run_id = ?`, now - 1, waiting.runId);
    expect((await teamWaitReasons(owner.id, team.id)).reasons[waiting.id]).toBeUndefined();
  });

  it('a resuming answer waits for a slot (budgets never hold an answer)', async () => {
    const owner = await makeUser('owner');
    const { team } = await makeTeam(owner.id);
    const id = await request(owner.id, team.id, team.members[0]!.id);
    await sql(`update jobs set status = 'resuming' where id = ?`, id);
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: 1 }).where(eq(schema.teams.id, team.id)));
    await seedRun({ ownerId: owner.id, conversationId: team.members[1]!.conversationId!, tokens: 10, teamId: team.id });
    const view = await loadSchedulingView();
    expect(whyWaiting(view, null, new Set([id])).get(id)).toEqual({ kind: 'slot', ahead: 0 });
    await writeTx((tx) => tx.update(schema.teams).set({ tokenBudget: null }).where(eq(schema.teams.id, team.id)));
  });
});

describe('GET /teams/:id/waiting', () => {
  it('answers the owner with the team revision; another owner gets 404 and learns nothing', async () => {
    const owner = await makeUser('owner');
    const stranger = await makeUser('stranger');
    const { team } = await makeTeam(owner.id);
    const queued = await request(owner.id, team.id, team.members[0]!.id);
    const mine = await call(waitingRoute, { headers: owner.auth, params: { id: team.id } });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ reasons: { [queued]: { kind: 'slot', ahead: 0 } } });
    expect(typeof mine.body.revision).toBe('number');
    const theirs = await call(waitingRoute, { headers: stranger.auth, params: { id: team.id } });
    expect(theirs.status).toBe(404);
    expect(theirs.raw).not.toContain(queued);
  });
});
