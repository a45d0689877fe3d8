import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import { currentCluster } from '@/server/cluster/cluster';
import { admitItem as admitInTx, finalizeItem, itemRunKey, launchItem } from '@/server/batches/items';
import { cancelBatch } from '@/server/batches/control';
import { releaseDeadProcessItems } from '@/server/batches/recovery';
import { createBatch } from '@/server/batches/store';
import { databaseEngine, getDb, schema, writeTx } from '@/server/db';
import { finished, makeAgent } from '../agents/helpers';
import { makeUser } from '../support/users';
import { itemRows } from './helpers';

// A hook into the launch after its reads of the item and its batch, before it writes anything (see the second test).
let afterFindBatch: (() => Promise<void>) | undefined;
vi.mock('@/server/batches/store', async (importOriginal) => {
  const store = await importOriginal<typeof import('@/server/batches/store')>();
  return {
    ...store,
    findBatch: async (id: string) => {
      const batch = await store.findBatch(id);
      const hook = afterFindBatch;
      afterFindBatch = undefined;
      await hook?.();
      return batch;
    },
  };
});

// Start-up recovery (SQLite) and the beat's takeover (Postgres) release an item admitted by a dead process before its
// run was recorded: queued at once, no attempt spent. No scheduler here: each step is driven by hand, as in leases.test.
const signal = () => new AbortController().signal;
const admitItem = (id: string) => writeTx(() => admitInTx(id));
const input = (agentId: string, rows: number, maxAttempts = 1): BatchCreateInput => ({
  target: { agentId },
  template: '/reply {{v}}',
  columns: ['v'],
  items: Array.from({ length: rows }, (_, i) => ({ v: `row ${i}` })),
  concurrency: 8,
  maxAttempts,
});
/** Pretend another process admitted the item: a process id no live process has. */
const leasedBy = (itemId: string, processId: string | null) =>
  writeTx((tx) => tx.update(schema.batchItems).set({ leaseProcessId: processId }).where(eq(schema.batchItems.id, itemId)));
const runsOf = async (conversationId: string | null) =>
  conversationId ? getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId)) : [];

/** A one-item batch whose item this process has admitted: the item as created and as admitted. */
async function oneAdmittedItem() {
  const alice = await makeUser('alice');
  const agent = await makeAgent(alice.id);
  const { batch } = await createBatch(alice.id, input(agent.id, 1), { origin: 'person' });
  const [item] = await itemRows(batch.id);
  await admitItem(item!.id);
  const [admitted] = await itemRows(batch.id);
  return { alice, batch, item, admitted };
}
/** The runs made under one lease of an item (its run key). */
const runsKeyedBy = (itemId: string, lease: number) => getDb().select().from(schema.runs).where(eq(schema.runs.idempotencyKey, itemRunKey(itemId, lease)));

describe('releasing the unlaunched items of a dead process', () => {
  it('admission records the admitting process; a dead one’s unlaunched item is queued again at once with no attempt spent, even with maxAttempts 1', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, input(agent.id, 1), { origin: 'person' });
    const [item] = await itemRows(batch.id);
    expect(await admitItem(item!.id)).toBe(true);
    const [admitted] = await itemRows(batch.id);
    expect(admitted).toMatchObject({ status: 'running', leaseProcessId: currentCluster().processId, attempts: 0 });
    expect(admitted!.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now());
    await leasedBy(item!.id, crypto.randomUUID());
    expect(await releaseDeadProcessItems()).toBe(1);
    const [released] = await itemRows(batch.id);
    // The lease had not expired: released at once, not after it.
    expect(released).toMatchObject({ status: 'queued', attempts: 0, lease: admitted!.lease + 1, leaseExpiresAt: null, leaseProcessId: null, runId: null });
    // Readmitted and run: one attempt, done.
    expect(await admitItem(item!.id)).toBe(true);
    await launchItem(item!.id, signal());
    const [launched] = await itemRows(batch.id);
    await finished(launched!.runId!);
    await finalizeItem(item!.id);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'done', attempts: 1, result: 'row 0' });
    expect(await runsOf(launched!.conversationId)).toHaveLength(1);
  });

  it('a launch whose lease is released between its read and its run’s record creates no run and writes nothing', async () => {
    const { batch, item, admitted } = await oneAdmittedItem();
    // The launch has read the item under its lease and its batch; the release lands before it writes anything.
    afterFindBatch = async () => {
      await leasedBy(item!.id, crypto.randomUUID());
      expect(await releaseDeadProcessItems()).toBe(1);
    };
    await launchItem(item!.id, signal());
    expect(afterFindBatch).toBeUndefined();
    const [after] = await itemRows(batch.id);
    expect(after).toMatchObject({ status: 'queued', attempts: 0, runId: null, conversationId: null, lease: admitted!.lease + 1 });
    // The run of the lost lease was rolled back with its record: no model runs for a lease nobody would record.
    expect(await runsKeyedBy(item!.id, admitted!.lease)).toEqual([]);
    expect(await runsOf(after!.conversationId)).toEqual([]);
  });

  it('a batch cancelled between the launch’s read and its conversation: the cancelled item gets no conversation and no run', async () => {
    const { alice, batch, item, admitted } = await oneAdmittedItem();
    afterFindBatch = async () => {
      await cancelBatch(alice.id, batch.id);
    };
    const conversationsBefore = await getDb().select({ id: schema.conversations.id }).from(schema.conversations);
    await launchItem(item!.id, signal());
    expect(afterFindBatch).toBeUndefined();
    const [after] = await itemRows(batch.id);
    // Must not happen: an empty hidden conversation (counted against the owner's quota) for an item nobody will run.
    expect(after).toMatchObject({ status: 'cancelled', conversationId: null, runId: null, attempts: 0, lease: admitted!.lease + 1 });
    expect(await getDb().select({ id: schema.conversations.id }).from(schema.conversations)).toEqual(conversationsBefore);
    expect(await runsKeyedBy(item!.id, admitted!.lease)).toEqual([]);
  });

  it('leaves alone: this process’s item, an item whose run was recorded (its run is recovered instead), and a queued or finished one', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, input(agent.id, 4, 3), { origin: 'person' });
    const [mine, launched, queued, done] = await itemRows(batch.id);
    await admitItem(mine!.id);
    await admitItem(launched!.id);
    await launchItem(launched!.id, signal());
    await leasedBy(launched!.id, crypto.randomUUID());
    await admitItem(done!.id);
    await launchItem(done!.id, signal());
    await finished((await itemRows(batch.id))[3]!.runId!);
    await finalizeItem(done!.id);
    await leasedBy(done!.id, crypto.randomUUID());
    const before = await itemRows(batch.id);
    expect(before.map((r) => r.status)).toEqual(['running', 'running', 'queued', 'done']);
    expect(await releaseDeadProcessItems()).toBe(0);
    expect(await itemRows(batch.id)).toEqual(before);
    expect(queued!.status).toBe('queued');
    await finished(before[1]!.runId!);
  });

  it('a flood: every unlaunched item of a dead process in many batches is released by one call; the live process’s are not', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const dead = crypto.randomUUID();
    const ids: string[] = [];
    for (let b = 0; b < 4; b++) {
      const { batch } = await createBatch(alice.id, input(agent.id, 10), { origin: 'person' });
      for (const row of await itemRows(batch.id)) {
        await admitItem(row.id);
        await leasedBy(row.id, dead);
        ids.push(row.id);
      }
    }
    const { batch: live } = await createBatch(alice.id, input(agent.id, 3), { origin: 'person' });
    for (const row of await itemRows(live.id)) await admitItem(row.id);
    expect(await releaseDeadProcessItems()).toBe(40);
    const rows = await getDb().select().from(schema.batchItems);
    const released = rows.filter((r) => ids.includes(r.id));
    expect(released.every((r) => r.status === 'queued' && r.attempts === 0)).toBe(true);
    expect(rows.filter((r) => r.batchId === live.id).map((r) => r.status)).toEqual(['running', 'running', 'running']);
  });

  it('Postgres judges liveness by heartbeat: a live process’s item stays, an expired registration’s goes; a null process is left to its lease on Postgres only', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const { batch } = await createBatch(alice.id, input(agent.id, 3), { origin: 'person' });
    const [alive, stale, unknown] = await itemRows(batch.id);
    const now = Date.now();
    const live = crypto.randomUUID();
    const expired = crypto.randomUUID();
    await writeTx((tx) =>
      tx.insert(schema.appProcesses).values([
        { id: live, pid: 1, host: 'h', startedAt: new Date(now - 60_000), heartbeatAt: new Date(now) },
        { id: expired, pid: 2, host: 'h', startedAt: new Date(now - 600_000), heartbeatAt: new Date(now - 600_000) },
      ]),
    );
    for (const row of [alive, stale, unknown]) await admitItem(row!.id);
    await leasedBy(alive!.id, live);
    await leasedBy(stale!.id, expired);
    await leasedBy(unknown!.id, null);
    const postgres = databaseEngine() === 'postgres';
    // SQLite has one process per database: any other id is a dead predecessor, heartbeat or not.
    expect(await releaseDeadProcessItems()).toBe(postgres ? 1 : 3);
    expect((await itemRows(batch.id)).map((r) => r.status)).toEqual(postgres ? ['running', 'queued', 'running'] : ['queued', 'queued', 'queued']);
  });
});
