import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { cancelBatch } from '@/server/batches/control';
import { contentText } from '@/server/agents/messages';
import { readThread } from '@/server/agents/thread';
import { getDb, schema } from '@/server/db';
import { loadSchedulingView } from '@/server/scheduler/view';
import { sendRequest } from '@/server/teams/requests';
import { conversationWith, makeAgent, send } from '../agents/helpers';
import { job } from '../support/scheduler';
import { makeTeam } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { itemRows, withBatchScheduler } from './helpers';

// Two slots: two team jobs waiting on their batches would hold both, and their items could never be admitted.
const SLOTS = 2;
withBatchScheduler({ maxActive: SLOTS });

const batchCall = (args: Record<string, unknown>) => `/call batch_task ${JSON.stringify(args)}`;
const runRow = async (id: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;
const terminal = (id: string, timeoutMs: number) =>
  until(
    async () => {
      const row = await job(id);
      return ['completed', 'failed', 'cancelled'].includes(row.status) && row;
    },
    timeoutMs,
    `job ${id}`,
  );
/** The tool result the job's run got from batch_task. */
async function toolResult(conversationId: string): Promise<Record<string, unknown>> {
  const { messages } = await readThread(conversationId);
  const tool = messages.find((m) => m.getType() === 'tool')!;
  return JSON.parse(contentText(tool.content)) as Record<string, unknown>;
}

describe('a team job waiting on its batch (wait: true) lends its slot, as a waiting task parent does', () => {
  it('two jobs each waiting on a batch, on two slots: the items run, both jobs end with their summaries, never over two slots', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id, { name: 'Worker', instructions: '/sleep 40\n/reply ok' });
    const { team } = await makeTeam(alice.id, ['A', 'B'], { toolGroups: ['batch'] });
    const items = [{ x: '1' }, { x: '2' }, { x: '3' }];
    const jobs = [];
    for (const [i, member] of team.members.entries()) {
      const text = batchCall({ agentId: worker.id, template: 'Do {{x}}', columns: ['x'], items, concurrency: 2, wait: true });
      jobs.push((await sendRequest(alice.id, team.id, { memberIds: [member.id], text, draftKey: `k${i}` })).jobs[0]!);
    }
    const ended = Promise.all(jobs.map((j) => terminal(j.id, 30_000)));
    // What must not happen: a stall (the waiting jobs holding every slot), or more than two slots held at once.
    const held: number[] = [];
    let done = false;
    void ended.finally(() => (done = true));
    while (!done) {
      held.push((await loadSchedulingView()).activeCount);
      await new Promise((r) => setTimeout(r, 20));
    }
    const finished = await ended;
    expect(Math.max(...held)).toBeLessThanOrEqual(SLOTS);
    expect(finished.map((j) => j.status)).toEqual(['completed', 'completed']);
    for (const j of finished) {
      expect(await toolResult(j.conversationId)).toMatchObject({ status: 'completed', counts: { done: 3, failed: 0 } });
      // Lent and taken back: nothing is left lending.
      expect((await runRow(j.runId!)).delegationWait).toBeNull();
    }
  }, 45_000);

  it('while it waits the job holds no slot; a cancelled batch gives the slot back and the call returns the cancelled summary', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id, { name: 'Slow', instructions: '/sleep 20000\n/reply late' });
    const { team } = await makeTeam(alice.id, ['Lead'], { toolGroups: ['batch'] });
    const text = batchCall({ agentId: worker.id, template: 'Do {{x}}', columns: ['x'], items: [{ x: '1' }, { x: '2' }], concurrency: 1, wait: true });
    const [sent] = (await sendRequest(alice.id, team.id, { memberIds: [team.members[0]!.id], text, draftKey: 'slow' })).jobs;
    const batch = await until(async () => (await getDb().select().from(schema.batches).where(eq(schema.batches.ownerId, alice.id)))[0], 10_000, 'the batch');
    await until(async () => (await itemRows(batch.id)).some((i) => i.runId), 10_000, 'an item to run');
    const running = await job(sent!.id);
    expect((await runRow(running.runId!)).delegationWait).toBe('waiting');
    // One slot held: the item's, not the waiting job's.
    expect((await loadSchedulingView()).heldSlots.get(alice.id)).toBe(1);
    await cancelBatch(alice.id, batch.id);
    const finished = await terminal(sent!.id, 15_000);
    expect(finished.status).toBe('completed');
    expect(await toolResult(finished.conversationId)).toMatchObject({ status: 'cancelled' });
    expect((await runRow(finished.runId!)).delegationWait).toBeNull();
  }, 30_000);

  it('a person’s direct chat calling batch_task holds no slot, so lends none (its run is never marked waiting)', async () => {
    const alice = await makeUser('alice');
    const worker = await makeAgent(alice.id, { name: 'Worker', instructions: '/reply ok' });
    const { conversation } = await conversationWith(alice.id, { name: 'Lead', toolGroups: ['batch'] });
    const run = await send(alice.id, conversation.id, batchCall({ agentId: worker.id, template: '{{x}}', columns: ['x'], items: [{ x: '1' }], concurrency: 1, wait: true }));
    expect(run.status).toBe('success');
    expect((await runRow(run.id)).delegationWait).toBeNull();
    expect(await toolResult(conversation.id)).toMatchObject({ status: 'completed', counts: { done: 1 } });
  });
});
