import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import { start } from '@/server/agents/runs';
import { createConversation } from '@/server/agents/conversations';
import { cancelBatch, retryFailed } from '@/server/batches/control';
import { admitItem as admitInTx, expireItem, finalizeItem, launchItem, overrideBatchLeaseForTests } from '@/server/batches/items';
import { createBatch } from '@/server/batches/store';
import { getDb, schema, writeTx } from '@/server/db';
import { makeAgent, finished } from '../agents/helpers';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { batchRow, ended, itemRows } from './helpers';

// No scheduler here: each step is driven by hand, as the scheduler's port would, to pin what each one may write.
const one = (agentId: string, template: string, maxAttempts = 3): BatchCreateInput => ({
  target: { agentId },
  template,
  columns: ['v'],
  items: [{ v: 'x' }],
  concurrency: 1,
  maxAttempts,
});
const signal = () => new AbortController().signal;
/** The scheduler admits inside its pass's transaction: so here. */
const admitItem = (id: string) => writeTx(() => admitInTx(id));

describe('batch item leases and retries', () => {
  it('a refusal before the model runs (the conversation busy) releases the lease without spending an attempt', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, one(agent.id, '/reply {{v}}'), { origin: 'person' });
    const [item] = await itemRows(batch.id);
    expect(await admitItem(item!.id)).toBe(true);
    // The item's conversation exists and is busy with another run: startRun refuses before anything runs.
    const conversation = await createConversation(alice.id, agent.id);
    await writeTx((tx) => tx.update(schema.batchItems).set({ conversationId: conversation.id }).where(eq(schema.batchItems.id, item!.id)));
    const { run: busy } = await start(alice.id, conversation.id, { text: '/sleep 300\n/reply busy' }, { idempotencyKey: 'busy' });
    await launchItem(item!.id, signal());
    const [after] = await itemRows(batch.id);
    expect(after).toMatchObject({ status: 'queued', attempts: 0, runId: null, lease: item!.lease + 2 });
    await finished(busy.id);
  });

  it('a failed run spends an attempt and is retried within maxAttempts, then fails; retry-failed gives a fresh budget', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, one(agent.id, '/fail provider down {{v}}', 2), { origin: 'person' });
    for (const attempt of [1, 2]) {
      const [item] = await itemRows(batch.id);
      expect(await admitItem(item!.id)).toBe(true);
      await launchItem(item!.id, signal());
      const [launched] = await itemRows(batch.id);
      expect(launched!.attempts).toBe(attempt);
      await finished(launched!.runId!);
      await finalizeItem(item!.id);
    }
    const [failed] = await itemRows(batch.id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 2 });
    expect(failed!.error).toMatch(/provider down x/);
    expect((await batchRow(batch.id)).status).toBe('completed');
    // Not a third run: a failed item is not admitted again.
    expect(await admitItem(failed!.id)).toBe(false);
    await retryFailed(alice.id, batch.id);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'queued', attempts: 0, error: null });
    expect((await batchRow(batch.id)).status).toBe('running');
  });

  it('an expired lease (no run recorded in time) spends an attempt; a lease not yet expired, or an older lease, changes nothing', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, one(agent.id, '/reply {{v}}', 1), { origin: 'person' });
    const [item] = await itemRows(batch.id);
    overrideBatchLeaseForTests(60_000);
    await admitItem(item!.id);
    const [held] = await itemRows(batch.id);
    await expireItem(item!.id, held!.lease);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'running', attempts: 0 });
    await writeTx((tx) => tx.update(schema.batchItems).set({ leaseExpiresAt: new Date(Date.now() - 1) }).where(eq(schema.batchItems.id, item!.id)));
    await expireItem(item!.id, held!.lease - 1);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'running', attempts: 0 });
    await expireItem(item!.id, held!.lease);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'failed', attempts: 1, error: 'The item lost its lease before its run started' });
    overrideBatchLeaseForTests();
  });

  it('cancel ends every unfinished item at once and clears its lease; a late completion of a slow run is never recorded', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const input = { target: { agentId: agent.id }, template: '/sleep 400\n/reply late {{v}}', columns: ['v'], items: [{ v: 'a' }, { v: 'b' }, { v: 'c' }], concurrency: 3 };
    const { batch } = await createBatch(alice.id, input, { origin: 'person' });
    const [first] = await itemRows(batch.id);
    await admitItem(first!.id);
    await launchItem(first!.id, signal());
    const [running] = await itemRows(batch.id);
    expect(running!.runId).toBeTruthy();
    const cancelled = await cancelBatch(alice.id, batch.id);
    expect(cancelled.status).toBe('cancelled');
    const rows = await itemRows(batch.id);
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(rows.every((r) => r.leaseExpiresAt === null)).toBe(true);
    expect(rows[0]!.lease).toBe(running!.lease + 1);
    // The slow worker's run ends after the cancel: finalizing under its old lease must not write 'done' or a result.
    const run = (await getDb().select().from(schema.runs).where(eq(schema.runs.id, running!.runId!)))[0]!;
    await until(async () => !['pending', 'running'].includes((await getDb().select().from(schema.runs).where(eq(schema.runs.id, run.id)))[0]!.status), 5_000, 'the run to stop');
    await finalizeItem(first!.id);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'cancelled', result: null });
    // Nothing of a cancelled batch is admitted again.
    expect(await admitItem(rows[1]!.id)).toBe(false);
  });

  it('a late completion under an older lease is fenced even if the item was requeued and admitted again meanwhile', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, one(agent.id, '/reply {{v}}'), { origin: 'person' });
    const [item] = await itemRows(batch.id);
    await admitItem(item!.id);
    await launchItem(item!.id, signal());
    const [first] = await itemRows(batch.id);
    await finished(first!.runId!);
    // The lease moved on (as an expiry and readmission would): the old run's outcome belongs to no one now.
    await writeTx((tx) => tx.update(schema.batchItems).set({ lease: first!.lease + 5, runId: null }).where(eq(schema.batchItems.id, item!.id)));
    await finalizeItem(item!.id);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'running', result: null });
    await writeTx((tx) => tx.update(schema.batchItems).set({ status: 'cancelled' }).where(eq(schema.batchItems.id, item!.id)));
  });

  it('maxAttempts defaults to LIMITS.batch.attempts.default (1 + a retry budget of 2)', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, { target: { agentId: agent.id }, template: '{{v}}', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 }, { origin: 'person' });
    expect(batch.maxAttempts).toBe(LIMITS.batch.attempts.default);
    expect(LIMITS.batch.attempts.default).toBe(3);
    await cancelBatch(alice.id, batch.id);
    await ended(batch.id);
  });
});
