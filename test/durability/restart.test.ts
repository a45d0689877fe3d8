import { afterAll, describe, expect, it } from 'vitest';
import { eq, like } from 'drizzle-orm';
import type { BaseMessage } from '@langchain/core/messages';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { recoverRuns } from '@/server/agents/recovery';
import { findRun, startRun, wait, type StartInput } from '@/server/agents/runs';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { closeDb, getDb, schema } from '@/server/db';
import { statement } from '@/server/db/statement';
import type { Job } from '@/server/db/schema';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { respondToJob } from '@/server/teams/answers';
import { admitJob } from '@/server/teams/execution';
import { sendRequest } from '@/server/teams/requests';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';

const TERMINAL = ['completed', 'failed', 'cancelled'];
const job = async (id: string): Promise<Job> => (await getDb().select().from(schema.jobs).where(eq(schema.jobs.id, id)))[0]!;
const runsWithKeyPrefix = async (prefix: string) => (await getDb().select().from(schema.runs).where(like(schema.runs.idempotencyKey, `${prefix}%`)));

/** What a dead process leaves: the scheduler and executing runs stop without recording anything; connections close. */
async function crash(): Promise<void> {
  await stopScheduler();
  await suspendActiveRuns();
  closeCheckpointer();
  await closeDb();
}

/** A new process: reopen, reconcile runs from their checkpoints, start the scheduler (no page is opened). */
async function boot(): Promise<Awaited<ReturnType<typeof recoverRuns>>> {
  resumeRunLaunches();
  getDb();
  const report = await recoverRuns();
  startScheduler(teamJobs, { tickMs: 30 });
  return report;
}

const teamMessagesFor = (messages: BaseMessage[], jobId: string, kind: string) =>
  messages.filter((m) => {
    const meta = m.additional_kwargs?.ensemble as { jobId?: string; kind?: string } | undefined;
    return m.getType() === 'human' && meta?.jobId === jobId && meta.kind === kind;
  });

afterAll(async () => {
  await stopScheduler();
});

describe('restart: unfinished work is reconciled at boot, each admission runs exactly once', () => {
  it('finishes queued, admitted, half-launched, finished-unrecorded, mid-run and resuming jobs after a restart', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const a = (await makeTeam(alice.id, ['Writer', 'Critic', 'Editor', 'Asker', 'Slow', 'Late'])).team;
    const b = (await makeTeam(bob.id, ['Solo', 'Pair'])).team;
    const [writer, critic, editor, asker, slow, late] = a.members;
    const send = async (team: typeof a, owner: string, memberId: string, text: string, draftKey: string) =>
      (await sendRequest(owner, team.id, { memberIds: [memberId], text, draftKey })).jobs[0]!;

    // 1. Finished but not recorded: the run completes while no scheduler listens (it stopped before finalizing).
    startScheduler(teamJobs, { tickMs: 30 });
    const finishedUnrecorded = await send(a, alice.id, writer!.id, '/sleep 200\n/reply written', 'fin');
    const finishedRunId = await until(async () => (await job(finishedUnrecorded.id)).runId, 5_000, 'run id stored');
    await stopScheduler();
    expect((await wait(finishedRunId, 5_000))!.status).toBe('success');
    expect((await job(finishedUnrecorded.id)).status).toBe('running');

    // 2. Mid-run: the process dies while the member's model is still working (the run row stays 'running').
    startScheduler(teamJobs, { tickMs: 30 });
    const midRun = await send(a, alice.id, slow!.id, '/sleep 1500\n/reply slow but sure', 'mid');
    const midRunId = await until(async () => (await job(midRun.id)).runId, 5_000, 'mid run id');
    await until(async () => (await findRun(midRunId))?.status === 'running', 5_000, 'mid run executing');

    // 3. A clarification answered but not yet admitted (resuming) when the process dies.
    const asking = await send(a, alice.id, asker!.id, '/ask Which tone?', 'ask');
    await until(async () => (await job(asking.id)).status === 'waiting_input', 5_000, 'question asked');
    await stopScheduler();
    expect((await respondToJob(alice.id, a.id, asking.id, { answer: 'Warm', answerKey: 'tone-1' })).status).toBe('resuming');

    // 4. Admitted (input frozen, key fixed) but the process died before starting the run.
    const admitted = await send(a, alice.id, critic!.id, '/reply critiqued', 'adm');
    expect(await admitJob(admitted.id)).toBe(true);
    expect(await job(admitted.id)).toMatchObject({ status: 'running', runId: null, runKey: `job:${admitted.id}:start` });

    // 5. Admitted and its run row created, but the process died before the job recorded the run id.
    const halfLaunched = await send(a, alice.id, editor!.id, '/reply edited', 'half');
    expect(await admitJob(halfLaunched.id)).toBe(true);
    await suspendActiveRuns(); // nothing executes from here on in this "process"
    const half = await job(halfLaunched.id);
    const orphan = await startRun(half.conversationId, half.frozenInput as StartInput, { idempotencyKey: half.runKey!, context: { teamId: a.id, memberId: editor!.id, jobId: half.id } });
    expect(orphan.created).toBe(true);
    expect((await findRun(orphan.run.id))!.status).toBe('pending');

    // 6. Queued work for both owners, never admitted.
    const queued = [await send(a, alice.id, late!.id, '/reply late one', 'q1'), await send(a, alice.id, late!.id, '/reply late two', 'q2'), await send(b, bob.id, b.members[0]!.id, '/reply solo', 'q3'), await send(b, bob.id, b.members[1]!.id, 'plain text', 'q4')];

    await crash();
    const report = await boot();
    // The mid-run job continues from its checkpoint; the orphan run never reached its thread, so it executes.
    expect(report).toEqual([
      { runId: midRunId, action: 'continued' },
      { runId: orphan.run.id, action: 'executed' },
    ]);

    const all = [finishedUnrecorded, midRun, asking, admitted, halfLaunched, ...queued];
    await until(async () => (await Promise.all(all.map((j) => job(j.id)))).every((j) => TERMINAL.includes(j.status)), 20_000, 'every job terminal');
    const results = Object.fromEntries(await Promise.all(all.map(async (j) => [j.id, await job(j.id)] as const)));
    expect(all.map((j) => results[j.id]!.status)).toEqual(all.map(() => 'completed'));
    expect(results[finishedUnrecorded.id]!.result).toBe('written');
    expect(results[finishedUnrecorded.id]!.runId).toBe(finishedRunId);
    expect(results[midRun.id]!.result).toBe('slow but sure');
    expect(results[midRun.id]!.runId).toBe(midRunId);
    expect(results[asking.id]!.result).toBe('Clarification accepted: Warm.');
    expect(results[admitted.id]!.result).toBe('critiqued');
    expect(results[halfLaunched.id]!.result).toBe('edited');
    expect(results[halfLaunched.id]!.runId).toBe(orphan.run.id);
    expect(queued.map((j) => results[j.id]!.result)).toEqual(['late one', 'late two', 'solo', expect.stringContaining('received: plain text')]);

    // Exactly one run per admission, and exactly one human turn per admission in the member's thread.
    for (const j of all) {
      expect(await runsWithKeyPrefix(`job:${j.id}:start`), `start runs of ${j.id}`).toHaveLength(1);
      const { messages } = await readThread((await job(j.id)).conversationId);
      expect(teamMessagesFor(messages, j.id, 'team_request'), `human turns of ${j.id}`).toHaveLength(1);
    }
    expect((await runsWithKeyPrefix(`job:${asking.id}:answer:`)).map((r) => r.idempotencyKey)).toEqual([`job:${asking.id}:answer:tone-1`]);
    const keys = (await statement('select conversation_id as c, idempotency_key as k, count(*) as n from runs group by 1, 2 having count(*) > 1').all());
    expect(keys).toEqual([]);
  }, 60_000);

  it('a lost answer acknowledgement followed by a restart reuses identical inputs: one answer run', async () => {
    await boot();
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Asker', 'Other']);
    const member = team.members[0]!;
    const j = (await sendRequest(alice.id, team.id, { memberIds: [member.id], text: '/ask Deadline?', draftKey: 'dl' })).jobs[0]!;
    await until(async () => (await job(j.id)).status === 'waiting_input', 10_000, 'waiting');

    // The answer is recorded (and may even start running), but its response never reaches the person...
    await respondToJob(alice.id, team.id, j.id, { answer: '/sleep 300\n/reply Friday', answerKey: 'answer-1' });
    const pending = await job(j.id);
    await crash();
    await boot();
    // ...so the person sends the same answer again after the restart: it is the same answer, not a new one.
    const again = await respondToJob(alice.id, team.id, j.id, { answer: '/sleep 300\n/reply Friday', answerKey: 'answer-1' });
    expect(again.id).toBe(j.id);
    await until(async () => TERMINAL.includes((await job(j.id)).status), 10_000, 'answered job finishes');
    // A retry after completion still answers with the same job, not a refusal or a second run.
    expect((await respondToJob(alice.id, team.id, j.id, { answer: '/sleep 300\n/reply Friday', answerKey: 'answer-1' })).status).toBe('completed');

    const done = await job(j.id);
    expect(done.status).toBe('completed');
    expect(done.result).toBe('Friday');
    expect(done.answer).toEqual(pending.answer);
    const answerRuns = await runsWithKeyPrefix(`job:${j.id}:answer:`);
    expect(answerRuns.map((r) => r.idempotencyKey)).toEqual([`job:${j.id}:answer:answer-1`]);
    expect((answerRuns[0]!.input as StartInput).text).toBe('/sleep 300\n/reply Friday');
    const { messages } = await readThread(member.conversationId!);
    expect(teamMessagesFor(messages, j.id, 'clarification_answer')).toHaveLength(1);
  }, 60_000);

  it('a run suspended by a graceful shutdown is continued after the restart, never recorded as cancelled', async () => {
    await boot();
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['Steady', 'Other']);
    const j = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: '/sleep 800\n/reply steady', draftKey: 's' })).jobs[0]!;
    const runId = await until(async () => (await job(j.id)).runId, 5_000, 'run id');
    await until(async () => (await findRun(runId))?.status === 'running', 5_000, 'executing');

    await stopScheduler();
    const report = await suspendActiveRuns();
    expect(report).toEqual({ suspended: [runId], settled: true });
    expect((await findRun(runId))!.status).toBe('running');
    expect((await job(j.id)).status).toBe('running');
    closeCheckpointer();
    await closeDb();

    await boot();
    await until(async () => TERMINAL.includes((await job(j.id)).status), 10_000, 'continued job finishes');
    expect(await job(j.id)).toMatchObject({ status: 'completed', result: 'steady', runId });
    expect((await findRun(runId))!.status).toBe('success');
    expect(await runsWithKeyPrefix(`job:${j.id}:`)).toHaveLength(1);
  }, 60_000);
});
