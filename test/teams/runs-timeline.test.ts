import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { getDb, schema, writeTx } from '@/server/db';
import { statement } from '@/server/db/statement';
import { sendRequest } from '@/server/teams/requests';
import { respondToJob } from '@/server/teams/answers';
import { cancelJob } from '@/server/teams/cancel';
import { start, wait } from '@/server/agents/runs';
import { teamRuns } from '@/server/teams/runs-timeline';
import * as runsRoute from '@/app/api/v1/teams/[id]/runs/route';
import type { ApiTeamRuns } from '@/lib/types/team-runs';
import type { TokenTotals } from '@/lib/types/run-events';
import { LIMITS } from '@/lib/limits';
import { makeUser } from '../support/users';
import { call, makeTeam } from '../support/teams';
import { scriptAgent } from '../support/scripts';
import { job, settled, withScheduler } from '../support/scheduler';
import { until } from '../support/wait';

withScheduler();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const lastHour = () => ({ from: new Date(Date.now() - HOUR), to: new Date(Date.now() + 60_000) });
const runRow = async (id: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;
const toolCall = (tool: string, args: object) => `/call ${tool} ${JSON.stringify(args)}`;
const sum = (list: TokenTotals[]): TokenTotals =>
  list.reduce(
    (a, t) => ({
      inputTokens: a.inputTokens + t.inputTokens,
      outputTokens: a.outputTokens + t.outputTokens,
      modelCalls: a.modelCalls + t.modelCalls,
      unreportedCalls: a.unreportedCalls + t.unreportedCalls,
    }),
    { inputTokens: 0, outputTokens: 0, modelCalls: 0, unreportedCalls: 0 },
  );
const finishedJobs = (teamId: string, count: number) =>
  until(async () => {
    const all = await getDb().select().from(schema.jobs).where(eq(schema.jobs.teamId, teamId)).orderBy(schema.jobs.seq);
    return all.length === count && all.every((j) => ['completed', 'failed', 'cancelled'].includes(j.status)) && all;
  }, 15_000, `team ${teamId}'s ${count} jobs to finish`);

describe('teamRuns: the runs timeline', () => {
  it('puts every run of a member conversation in its lane, with its job, the handoffs between lanes and token totals', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Research', 'Review']);
    const [research, review] = team.members;
    await scriptAgent(agents[1]!.id, '/reply Looks good');
    const root = (await sendRequest(alice.id, team.id, {
      memberIds: [research!.id],
      text: toolCall('send_member', { member: review!.id, text: 'Please review', request_id: 'r1' }),
      draftKey: 'd',
    })).jobs[0]!;
    const [rootJob, handoffJob, receiptJob] = await finishedJobs(team.id, 3);
    // The person also chats with Review's conversation directly: a run of that lane that is no job.
    const { run: direct } = await start(alice.id, review!.conversationId!, { text: 'hello' }, { idempotencyKey: crypto.randomUUID() });
    await wait(direct.id);

    const view = await teamRuns(alice.id, team.id, lastHour());
    expect(view.members.map((m) => m.id)).toEqual([research!.id, review!.id]);
    expect(view.truncated).toBe(false);
    const lane = (memberId: string) => view.runs.filter((r) => r.memberId === memberId);
    expect(lane(research!.id).map((r) => [r.jobId, r.jobKind, r.outcome])).toEqual([
      [root.id, 'request', 'completed'],
      [receiptJob!.id, 'receipt', 'completed'],
    ]);
    expect(lane(review!.id).map((r) => [r.jobId, r.jobKind, r.outcome])).toEqual([
      [handoffJob!.id, 'request', 'completed'],
      [null, null, 'completed'],
    ]);
    expect(lane(review!.id)[1]!.runId).toBe(direct.id);
    // Each run is its job's recorded run.
    expect(lane(research!.id)[0]!.runId).toBe(rootJob!.runId);
    expect(lane(review!.id)[0]!.runId).toBe(handoffJob!.runId);

    // Handoffs: the person → Research (no sender run), Research's running root run → Review's run.
    expect(view.handoffs).toEqual([
      { jobId: root.id, fromMemberId: null, toMemberId: research!.id, at: expect.any(String), fromRunId: null, toRunId: rootJob!.runId },
      { jobId: handoffJob!.id, fromMemberId: research!.id, toMemberId: review!.id, at: expect.any(String), fromRunId: rootJob!.runId, toRunId: handoffJob!.runId },
    ]);

    // Tokens: each finished run's are its recorded totals; members' and the team's are their sums.
    for (const r of view.runs) {
      const row = await runRow(r.runId);
      expect(r.tokens).toEqual({ inputTokens: row.inputTokens, outputTokens: row.outputTokens, modelCalls: row.modelCalls, unreportedCalls: row.unreportedCalls });
      expect(r.tokens.modelCalls).toBeGreaterThan(0);
      expect(r.tokens.inputTokens).toBeGreaterThan(0);
    }
    for (const m of view.members) expect(m.tokens).toEqual(sum(lane(m.id).map((r) => r.tokens)));
    expect(view.totals).toEqual(sum(view.runs.map((r) => r.tokens)));
    expect(view.totals).toEqual(sum(view.members.map((m) => m.tokens)));
  });

  it("attributes a clarification answer's second run to the same job", async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const member = team.members[0]!;
    const j = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/ask Which format?', draftKey: 'q' })).jobs[0]!;
    const asked = await settled(j.id);
    await respondToJob(alice.id, team.id, j.id, { answer: 'Two pages', answerKey: 'a1' });
    const done = await until(async () => (await job(j.id)).status === 'completed' && await job(j.id), 10_000, 'answered job');
    expect(done.runId).not.toBe(asked.runId);

    const runs = (await teamRuns(alice.id, team.id, lastHour())).runs;
    expect(runs.map((r) => [r.runId, r.jobId, r.outcome])).toEqual([
      [asked.runId, j.id, 'interrupted'],
      [done.runId, j.id, 'completed'],
    ]);
  });

  it('maps outcomes: failed with its error run, cancelled, and a running run with its tokens so far', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B']);
    const [a, b] = team.members;
    const failing = (await sendRequest(alice.id, team.id, { memberIds: [a!.id], text: '/fail quota exceeded', draftKey: 'f' })).jobs[0]!;
    const slow = (await sendRequest(alice.id, team.id, { memberIds: [b!.id], text: '/sleep 20000', draftKey: 's' })).jobs[0]!;
    await settled(failing.id);
    const running = await until(async () => {
      const r = (await job(slow.id)).runId;
      return r && (await runRow(r)).status === 'running' && r;
    }, 10_000, 'slow run running');

    const live = await teamRuns(alice.id, team.id, lastHour());
    const liveRun = live.runs.find((r) => r.runId === running)!;
    expect(liveRun).toMatchObject({ memberId: b!.id, jobId: slow.id, status: 'running', outcome: null, finishedAt: null });
    expect(live.runs.find((r) => r.jobId === failing.id)).toMatchObject({ status: 'error', outcome: 'failed' });
    expect(live.totals).toEqual(sum(live.runs.map((r) => r.tokens)));

    await cancelJob(alice.id, team.id, slow.id);
    await until(async () => (await job(slow.id)).status === 'cancelled', 10_000, 'cancelled job');
    const after = (await teamRuns(alice.id, team.id, lastHour())).runs.find((r) => r.runId === running)!;
    expect(after).toMatchObject({ status: 'cancelled', outcome: 'cancelled', finishedAt: expect.any(String) });
  });

  it('keeps a run that finishes exactly at `from` and drops one that starts exactly at `to`', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const j = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: 'hello', draftKey: 'e' })).jobs[0]!;
    const done = await settled(j.id);
    const run = await runRow(done.runId!);
    const started = run.startedAt!.getTime();
    const finished = run.finishedAt!.getTime();
    const ids = async (from: number, to: number) => (await teamRuns(alice.id, team.id, { from: new Date(from), to: new Date(to) })).runs.map((r) => r.runId);

    expect(await ids(finished, finished + HOUR)).toEqual([run.id]);
    expect(await ids(finished + 1, finished + HOUR)).toEqual([]);
    expect(await ids(started - HOUR, started)).toEqual([]);
    expect(await ids(started - HOUR, started + 1)).toEqual([run.id]);
  });
});

describe('teamRuns: the run bound', () => {
  it(`returns maxRuns runs untruncated, and past it keeps the newest maxRuns with truncated`, async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const conversationId = team.members[1]!.conversationId!;
    const { maxRuns } = LIMITS.teamRuns;
    const base = Date.now() - HOUR / 2;
    // Finished runs recorded straight into the table (a real run each would take minutes), 100 ms apart.
    const insert = statement(
      `INSERT INTO runs (id, conversation_id, owner_id, idempotency_key, kind, status, model, input, created_at, started_at, finished_at)
       VALUES (?, ?, ?, ?, 'start', 'success', 'scripted', '{}', ?, ?, ?)`,
    );
    const at = (ms: number) => new Date(ms);
    const add = (i: number) => insert.run(`bulk-${team.id}-${i}`, conversationId, alice.id, `bulk-${i}`, at(base + i * 100), at(base + i * 100), at(base + i * 100 + 50));
    await writeTx(async () => {
      for (let i = 0; i < maxRuns; i++) await add(i);
    });
    const atLimit = await teamRuns(alice.id, team.id, lastHour());
    expect(atLimit.runs).toHaveLength(maxRuns);
    expect(atLimit.truncated).toBe(false);

    await writeTx(() => add(maxRuns));
    const past = await teamRuns(alice.id, team.id, lastHour());
    expect(past.truncated).toBe(true);
    expect(past.runs).toHaveLength(maxRuns);
    // The oldest is the one left out; the newest is in.
    expect(past.runs[0]!.runId).toBe(`bulk-${team.id}-1`);
    expect(past.runs.at(-1)!.runId).toBe(`bulk-${team.id}-${maxRuns}`);
  });
});

describe('GET /api/v1/teams/:id/runs', () => {
  const get = (token: Record<string, string>, teamId: string, query = '') =>
    call(runsRoute.GET, { headers: token, url: `http://localhost/api/v1/teams/${teamId}/runs${query}`, params: { id: teamId } });

  it('serves the last 24 h by default and takes a window of up to maxWindowDays, 422 naming the field past it', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const j = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: 'hello', draftKey: 'w' })).jobs[0]!;
    const done = await settled(j.id);

    const byDefault = await get(alice.auth, team.id);
    expect(byDefault.status).toBe(200);
    const body = byDefault.body as unknown as ApiTeamRuns;
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(DAY);
    expect(body.runs.map((r) => r.runId)).toEqual([done.runId]);

    const to = new Date(Date.now() + 60_000);
    const at = (ms: number) => `?from=${encodeURIComponent(new Date(to.getTime() - ms).toISOString())}&to=${encodeURIComponent(to.toISOString())}`;
    const max = LIMITS.teamRuns.maxWindowDays * DAY;
    const atLimit = await get(alice.auth, team.id, at(max));
    expect(atLimit.status).toBe(200);
    expect((atLimit.body as unknown as ApiTeamRuns).runs).toHaveLength(1);
    const past = await get(alice.auth, team.id, at(max + 1));
    expect(past.status).toBe(422);
    expect(past.body.error).toMatchObject({ code: 'validation_error', fields: { to: expect.stringContaining(`${LIMITS.teamRuns.maxWindowDays} days`) } });
  });

  it('refuses unreadable dates, from ≥ to and unknown fields, naming the field', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id);
    const fields = async (query: string) => {
      const res = await get(alice.auth, team.id, query);
      expect(res.status).toBe(422);
      return Object.keys((res.body.error as { fields: object }).fields);
    };
    expect(await fields('?from=yesterday')).toEqual(['from']);
    expect(await fields('?to=2026-13-01T00:00:00Z')).toEqual(['to']);
    expect(await fields('?to=2026-05-01T00:00:00')).toEqual(['to']);
    expect(await fields('?from=2026-05-01T00:00:00Z&to=2026-05-01T00:00:00Z')).toEqual(['from']);
    expect(await fields('?from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z')).toEqual(['from']);
    expect(await fields('?limit=5')).toEqual(['limit']);
  });

  it("answers 404 for another owner's team and shows none of its runs", async () => {
    const alice = await makeUser('alice');
    const mallory = await makeUser('mallory');
    const { team } = await makeTeam(alice.id);
    const j = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: 'hello', draftKey: 'o' })).jobs[0]!;
    await settled(j.id);
    const res = await get(mallory.auth, team.id);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Team not found' } });
    expect(res.raw).not.toContain(team.members[0]!.id);
    // Alice still sees it, unchanged by the attempt.
    const mine = await get(alice.auth, team.id);
    expect((mine.body as unknown as ApiTeamRuns).runs).toHaveLength(1);
    expect((await getDb().select().from(schema.runs).where(inArray(schema.runs.ownerId, [mallory.id])))).toEqual([]);
  });
});
