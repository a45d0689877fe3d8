import crypto from 'node:crypto';
import { ToolMessage } from '@langchain/core/messages';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import { readThread } from '@/server/agents/thread';
import { answerItem } from '@/server/batches/answer';
import { retryFailed } from '@/server/batches/control';
import { batchEnds } from '@/server/batches/ended';
import { createBatch } from '@/server/batches/store';
import { getDb, schema, writeTx } from '@/server/db';
import { readInbox } from '@/server/inbox/read';
import * as retryRoute from '@/app/api/v1/batches/[id]/retry-failed/route';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { ended, itemRows, withBatchScheduler } from './helpers';

/**
 * A batch item that last stopped at an approval, then retried (ADR 059, "Retry failed") instead of answered. Its
 * conversation is reused, so the old run's approval is still pending in it: the retry must start the item afresh.
 */
withBatchScheduler({ maxActive: 1 });

const key = () => crypto.randomUUID();
const CALC = '/call calculator {"expression":"6*7"}';
const runsOf = (conversationId: string) =>
  getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId)).orderBy(schema.runs.createdAt);
const inbox = async (ownerId: string) => (await readInbox(ownerId, { limit: LIMITS.inbox.maxLimit })).items.map((i) => i.id);
/** The calculator's results in the item's conversation, as the model and the tool wrote them. */
const calculatorResults = async (conversationId: string) =>
  (await readThread(conversationId)).messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m) && m.name === 'calculator').map((m) => m.content);
const itemWhere = (batchId: string, status: string) =>
  until(
    async () => {
      const [row] = await itemRows(batchId);
      return row?.status === status && row;
    },
    15_000,
    `the item to be ${status}`,
  );

async function approvalBatch(ownerId: string, commands: string[]) {
  const agent = await makeAgent(ownerId, { toolGroups: ['utility'], approvalTools: ['calculator'] });
  const input = { target: { agentId: agent.id }, template: '{{cmd}}', columns: ['cmd'], items: commands.map((cmd) => ({ cmd })), concurrency: 1, maxAttempts: 1 };
  return (await createBatch(ownerId, input, { origin: 'person' })).batch;
}

describe('retrying a batch whose item waits at an approval', () => {
  it('leaves the waiting item as it is (retry is for failed items): its run, lease and one Inbox entry stay, and its answer finishes it once', async () => {
    const ann = await makeUser('ann');
    const batch = await approvalBatch(ann.id, [CALC, '/fail planned']);
    const [waiting, failed] = await until(
      async () => {
        const rows = await itemRows(batch.id);
        return rows[0]?.status === 'waiting' && rows[1]?.status === 'failed' && rows;
      },
      15_000,
      'one item waiting and one failed',
    );
    expect(await inbox(ann.id)).toEqual([`batch:${waiting!.id}`]);

    const retried = await call(retryRoute.POST, { method: 'POST', headers: ann.auth, params: { id: batch.id } });
    expect(retried.status).toBe(200);
    expect(retried.body.batch).toMatchObject({ status: 'running', counts: { waiting: 1 } });
    // The failed one ran again (and failed again: its one attempt); the waiting one was not touched.
    const again = await until(
      async () => {
        const rows = await itemRows(batch.id);
        return rows[1]?.status === 'failed' && rows[1].lease > failed!.lease && rows;
      },
      15_000,
      'the failed item to run again',
    );
    expect(again[0]).toMatchObject({ status: 'waiting', runId: waiting!.runId, lease: waiting!.lease, attempts: 1, answer: null });
    expect(await inbox(ann.id)).toEqual([`batch:${waiting!.id}`]);
    expect(await calculatorResults(waiting!.conversationId!)).toEqual([]);

    await answerItem(ann.id, batch.id, waiting!.id, { response: { approved: true }, answerKey: key() });
    await itemWhere(batch.id, 'done');
    const [done] = await itemRows(batch.id);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
    expect(await calculatorResults(done!.conversationId!)).toEqual(['42']);
    expect((await runsOf(done!.conversationId!)).map((r) => [r.kind, r.status])).toEqual([
      ['start', 'interrupted'],
      ['resume', 'success'],
    ]);
    expect(await inbox(ann.id)).toEqual([]);
  });

  it('an item that failed while its approval was still pending starts afresh when retried: the old call never runs, it asks again, is listed once, and finishes once', async () => {
    const bo = await makeUser('bo');
    const batch = await approvalBatch(bo.id, [CALC]);
    const first = await itemWhere(batch.id, 'waiting');
    const conversationId = first.conversationId!;
    const [firstRun] = await runsOf(conversationId);
    expect(firstRun!.interrupt).toMatchObject({ type: 'approval', tool: 'calculator' });

    // Answered, then failed before its run resumed (its resume refused): the answer is held, the conversation still
    // stops at the approval. This is the state failItem leaves.
    const held = { type: 'interrupt', response: { approved: true }, answerKey: key() };
    await writeTx((tx) =>
      tx
        .update(schema.batchItems)
        .set({ status: 'failed', answer: held, runId: null, waitingSince: null, error: 'The resume was refused', finishedAt: new Date() })
        .where(eq(schema.batchItems.id, first.id)),
    );
    expect(await inbox(bo.id)).toEqual([]);

    const endings: string[] = [];
    const onEnded = (id: string) => id === batch.id && endings.push(id);
    batchEnds().on('ended', onEnded);
    try {
      await retryFailed(bo.id, batch.id);
      const asked = await itemWhere(batch.id, 'waiting');
      // Afresh: no held answer, the one attempt of the retry spent by its new run, which stops at its own approval.
      expect(asked).toMatchObject({ attempts: 1, answer: null, conversationId });
      expect(asked.runId).not.toBe(firstRun!.id);
      const runs = await runsOf(conversationId);
      expect(runs.map((r) => [r.kind, r.status])).toEqual([
        ['start', 'interrupted'],
        ['start', 'interrupted'],
      ]);
      expect(runs[1]!.interrupt).toMatchObject({ type: 'approval', tool: 'calculator', args: { expression: '6*7' } });
      // The approval held before the retry was not used, and the old call did not run.
      expect(await calculatorResults(conversationId)).toEqual([]);
      expect(await inbox(bo.id)).toEqual([`batch:${first.id}`]);

      await answerItem(bo.id, batch.id, first.id, { response: { approved: true }, answerKey: key() });
      const finished = await ended(batch.id);
      expect(finished.status).toBe('completed');
      const [done] = await itemRows(batch.id);
      expect(done).toMatchObject({ status: 'done', attempts: 1 });
      expect(done!.result).toContain('[calculator] 42');
      // The tool ran once, for the approved call; the old call stays unanswered in the thread and nothing resumed it.
      expect(await calculatorResults(conversationId)).toEqual(['42']);
      expect((await runsOf(conversationId)).map((r) => [r.kind, r.status])).toEqual([
        ['start', 'interrupted'],
        ['start', 'interrupted'],
        ['resume', 'success'],
      ]);
      expect(await inbox(bo.id)).toEqual([]);
      expect(endings).toEqual([batch.id]);
    } finally {
      batchEnds().off('ended', onEnded);
    }
  });
});
