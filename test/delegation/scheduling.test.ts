import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { readThread } from '@/server/agents/thread';
import { contentText } from '@/server/agents/messages';
import { getDb, schema } from '@/server/db';
import { currentScheduler } from '@/server/scheduler/runtime';
import { loadSchedulingView } from '@/server/scheduler/view';
import { sendRequest } from '@/server/teams/requests';
import { start } from '@/server/agents/runs';
import { conversationWith, send } from '../agents/helpers';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { delegationsOf, runRow, taskCall, withDelegationScheduler } from './helpers';

const SLOTS = 8;
const TERMINAL = ['completed', 'failed', 'cancelled'];
withDelegationScheduler({ maxActive: SLOTS });

/** `n` task calls in one response (they run in parallel in the parent's tools step). */
const parallelTasks = (n: number, prompt: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => (i === 0 ? '/call' : '/also') + ` task ${JSON.stringify({ description: `part ${i + 1}`, prompt: prompt(i) })}`).join('\n');

/** Sample a value while `work` runs (bounded by the work itself), returning every sample. */
async function sampleWhile<T>(work: Promise<unknown>, sample: () => T | Promise<T>): Promise<T[]> {
  const samples: T[] = [];
  let done = false;
  // Only notes when it settles, either way; its failure is surfaced by the `await work` below.
  const settled = () => (done = true);
  void work.then(settled, settled);
  while (!done) {
    samples.push(await sample());
    await new Promise((r) => setTimeout(r, 20));
  }
  await work;
  return samples;
}

describe('scheduling: children take slots through the owner-fair scheduler, a waiting parent lends its slot', () => {
  it('eight team jobs each delegating three children on eight slots all finish (no deadlock), never over eight slots', async () => {
    const alice = await makeUser('alice');
    const { team } = await makeTeam(alice.id, ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
    const jobs = [];
    for (const [i, m] of team.members.entries()) {
      jobs.push((await sendRequest(alice.id, team.id, { memberIds: [m.id], text: parallelTasks(3, (c) => `/sleep 50\n/reply child ${i}.${c}`), draftKey: `k${i}` })).jobs[0]!);
    }
    // Bounded generously: the machine's disk (fsync per commit) sets the pace, not the scheduler.
    const finished = Promise.all(
      jobs.map((j) =>
        until(
          async () => {
            const row = await job(j.id);
            return TERMINAL.includes(row.status) && row;
          },
          45_000,
          `job ${j.id}`,
        ),
      ),
    );
    // What must not happen: more than eight slots held at once (children + parents not waiting), or a stall.
    const held = await sampleWhile(finished, async () => (await loadSchedulingView()).activeCount);
    expect(Math.max(...held)).toBeLessThanOrEqual(SLOTS);
    const done = await finished;
    expect(done.map((j) => j.status)).toEqual(jobs.map(() => 'completed'));
    const rows = (await Promise.all(done.map((j) => delegationsOf(j.runId!)))).flat();
    expect(rows).toHaveLength(24);
    expect(rows.every((r) => r.status === 'completed' && r.teamId === team.id)).toBe(true);
    expect(done.map((j) => (rows.filter((r) => r.parentRunId === j.runId).map((r) => (r.result as { output: string }).output)))).toEqual(
      done.map((_, i) => [`child ${i}.0`, `child ${i}.1`, `child ${i}.2`]),
    );
    // Each child's run carries the team and its parent; no parent is left lending its slot.
    for (const r of rows) expect(await runRow(r.childRunId!)).toMatchObject({ teamId: team.id, parentRunId: r.parentRunId, depth: 1 });
    expect(await Promise.all(done.map(async (j) => (await runRow(j.runId!)).delegationWait))).toEqual(done.map(() => null));
  }, 60_000);

  it('children of one run at once never exceed min(agent, server); the rest wait queued', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { maxConcurrentChildren: 2, maxChildren: 4 });
    const started = send(alice.id, conversation.id, parallelTasks(4, (i) => `/sleep 150\n/reply c${i}`));
    const running = await sampleWhile(started, async () => (await getDb().select().from(schema.delegations).where(eq(schema.delegations.status, 'running'))).length);
    expect(Math.max(...running)).toBe(2);
    const run = await started;
    expect((await delegationsOf(run.id)).map((d) => d.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });
});

describe('total children per run: a durable ledger, and the delegation cap guard', () => {
  it('past maxChildren a call is refused, then the next task calls are removed with a visible note → delegation_capped', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id, { maxChildren: 2 });
    const script = [parallelTasks(3, (i) => `/reply c${i}`), taskCall({ description: 'one more', prompt: '/reply never' })].join('\n');
    const run = await send(alice.id, conversation.id, script);
    // Two children ran; the third call of the batch was refused; the next response's call was removed.
    expect((await delegationsOf(run.id)).map((d) => d.status)).toEqual(['completed', 'completed', 'failed']);
    expect(run.status).toBe('success');
    expect(run.stopReason).toBe('delegation_capped');
    const { messages } = await readThread(conversation.id);
    const texts = messages.map((m) => contentText(m.content));
    expect(texts.some((t) => t.startsWith('Delegation limit reached'))).toBe(true);
    const results = messages.filter((m) => m.getType() === 'tool' && m.name === 'task').map((m) => JSON.parse(contentText(m.content)) as { error?: string });
    expect(results.map((r) => r.error ?? 'ok')).toEqual(['ok', 'ok', 'children_exhausted']);
    // Earlier runs of the conversation don't use up the next run's children.
    const next = await send(alice.id, conversation.id, taskCall({ description: 'fresh', prompt: '/reply again' }));
    expect(next.stopReason).toBeNull();
    expect((await delegationsOf(next.id)).map((d) => d.status)).toEqual(['completed']);
  });
});

describe('children do not count as the person’s conversations or direct runs', () => {
  it('the hidden conversation is not listed; the scheduler holds no slot for a direct parent', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, taskCall({ description: 'd', prompt: '/reply x' }));
    const { listConversations } = await import('@/server/agents/conversations');
    expect((await listConversations(alice.id)).map((c) => c.id)).toEqual([conversation.id]);
    const [row] = await delegationsOf(run.id);
    expect((await getDb().select().from(schema.conversations).where(eq(schema.conversations.id, row!.childConversationId!)))[0]).toMatchObject({ parentRunId: run.id, ownerId: alice.id });
    // A direct run never lent a slot (it held none).
    expect((await runRow(run.id)).delegationWait).toBeNull();
    expect(currentScheduler()).toBeDefined();
  });
});


describe('a child’s conversation is the framework’s', () => {
  it('the person can’t send a message into it (409), another owner sees nothing (404)', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, taskCall({ description: 'd', prompt: '/reply x' }));
    const childConversationId = (await delegationsOf(run.id))[0]!.childConversationId!;
    await expect(start(alice.id, childConversationId, { text: 'hello' }, { idempotencyKey: 'k' })).rejects.toThrow(expect.objectContaining({ status: 409, code: 'delegated_conversation' }));
    await expect(start(bob.id, childConversationId, { text: 'hello' }, { idempotencyKey: 'k' })).rejects.toThrow(expect.objectContaining({ status: 404 }));
  });
});
