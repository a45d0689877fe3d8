import { afterAll, describe, expect, it } from 'vitest';
import { eq, like } from 'drizzle-orm';
import { closeCheckpointer } from '@/server/agents/checkpointer';
import { delegationPort } from '@/server/agents/delegation/port';
import { contentText } from '@/server/agents/messages';
import { recoverRuns } from '@/server/agents/recovery';
import { resumeRunLaunches, suspendActiveRuns } from '@/server/agents/suspend';
import { readThread } from '@/server/agents/thread';
import { closeDb, getDb, openDatabase, schema, writeTx } from '@/server/db';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { sendRequest } from '@/server/teams/requests';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { delegationsOf, runRow } from './helpers';

const start = () => startScheduler(teamJobs, { tickMs: 30, delegations: delegationPort });

/** What a dead process leaves: nothing more is recorded; connections close. */
async function crash(): Promise<void> {
  await stopScheduler();
  await suspendActiveRuns();
  closeCheckpointer();
  await closeDb();
}

/** A new process: reopen, reconcile runs from their checkpoints, start the scheduler. */
async function boot() {
  resumeRunLaunches();
  await openDatabase();
  const report = await recoverRuns();
  start();
  return report;
}

afterAll(async () => {
  await stopScheduler();
});

const call = (verb: string, args: Record<string, unknown>) => `${verb} task ${JSON.stringify(args)}`;

describe('restart: a delegating job and its children continue; nothing runs twice; the ledger keeps counting', () => {
  it('finishes a job whose children were done, running and queued when the process died', async () => {
    const alice = await makeUser('alice');
    const { team, agents } = await makeTeam(alice.id, ['Lead', 'Other']);
    await writeTx(async (tx) => {
      await tx.update(schema.agents).set({ maxConcurrentChildren: 1, maxChildren: 3 }).where(eq(schema.agents.id, agents[0]!.id));
    });
    start();
    const script = [
      call('/call', { description: 'fast', prompt: '/reply fast done' }),
      call('/also', { description: 'slow', prompt: '/sleep 1500\n/reply slow done' }),
      call('/also', { description: 'queued', prompt: '/reply queued done' }),
      // The next turn asks for a fourth child: the ledger says three were started, across the restart too.
      call('/call', { description: 'fourth', prompt: '/reply never' }),
    ].join('\n');
    const sent = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text: script, draftKey: 'restart' })).jobs[0]!;
    const parentRunId = await until(async () => (await job(sent.id)).runId, 10_000, 'parent run');
    await until(async () => {
      const rows = await delegationsOf(parentRunId);
      const running = await Promise.all(rows.map(async (r) => !!r.childRunId && (await runRow(r.childRunId)).status === 'running'));
      return rows.length === 3 && rows.some((r) => r.status === 'completed') && running.some(Boolean);
    }, 15_000, 'one child done, one running');
    const before = (await delegationsOf(parentRunId)).map((r) => r.status).sort();
    expect(before).toEqual(['completed', 'queued', 'running']);

    await crash();
    await boot();

    const done = await until(
      async () => {
        const row = await job(sent.id);
        return ['completed', 'failed', 'cancelled'].includes(row.status) && row;
      },
      30_000,
      'job finished',
    );
    expect(done.status).toBe('completed');
    expect(done.runId).toBe(parentRunId);
    const rows = await delegationsOf(parentRunId);
    expect(rows.map((r) => [r.status, (r.result as { output: string }).output])).toEqual([
      ['completed', 'fast done'],
      ['completed', 'slow done'],
      ['completed', 'queued done'],
    ]);
    // Exactly one run per child, keyed by its delegation; one task message in each child's thread.
    for (const row of rows) {
      expect(await getDb().select().from(schema.runs).where(like(schema.runs.idempotencyKey, `delegation:${row.id}`))).toHaveLength(1);
      const { messages } = await readThread(row.childConversationId!);
      expect(messages.filter((m) => m.getType() === 'human')).toHaveLength(1);
    }
    // The parent's thread: one result per task call, and the fourth call removed by the cap guard.
    const { messages } = await readThread((await job(sent.id)).conversationId);
    const taskResults = messages.filter((m) => m.getType() === 'tool' && m.name === 'task');
    expect(taskResults).toHaveLength(3);
    expect(messages.some((m) => contentText(m.content).startsWith('Delegation limit reached'))).toBe(true);
    expect((await runRow(parentRunId)).stopReason).toBe('delegation_capped');
  }, 60_000);
});
