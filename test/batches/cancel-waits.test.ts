import crypto from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import { resume } from '@/server/agents/runs';
import { CANCELLED, answerItem } from '@/server/batches/answer';
import { cancelBatch } from '@/server/batches/control';
import { finalizeItem } from '@/server/batches/items';
import { createBatch } from '@/server/batches/store';
import { getDb, schema, writeTx } from '@/server/db';
import { answerApprovals } from '@/server/inbox/bulk-answer';
import { readInbox } from '@/server/inbox/read';
import { subscribeConversation } from '@/server/push/bus';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { delegationPort } from '@/server/agents/delegation/port';
import { batchPort } from '@/server/batches/port';
import * as answerRoute from '@/app/api/v1/batches/[id]/items/[itemId]/answer/route';
import * as cancelRoute from '@/app/api/v1/batches/[id]/cancel/route';
import * as rerunRoute from '@/app/api/v1/batches/[id]/retry-cancelled/route';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { batchRow, ended, itemRows, withBatchScheduler } from './helpers';

withBatchScheduler();

type User = Awaited<ReturnType<typeof makeUser>>;
const key = () => crypto.randomUUID();
const careful = (ownerId: string) => makeAgent(ownerId, { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
const runsOf = (conversationId: string) =>
  getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId)).orderBy(asc(schema.runs.createdAt));
const run = async (id: string) => (await getDb().select().from(schema.runs).where(eq(schema.runs.id, id)))[0]!;
const inboxIds = async (ownerId: string) => (await readInbox(ownerId, { limit: 50 })).items.map((i) => i.id);

/** One item per directive (the template is the item's own text): by default a calculator call that waits for approval, and a question. */
const APPROVAL = '/call calculator {"expression":"2*3"}';
async function waitingBatch(owner: User, directives = [APPROVAL, '/ask Which region for ACME?']) {
  const agent = await careful(owner.id);
  const body: BatchCreateInput = { target: { agentId: agent.id }, template: '{{cmd}}', columns: ['cmd'], items: directives.map((cmd) => ({ cmd })), concurrency: 2, maxAttempts: 1 };
  const { batch } = await createBatch(owner.id, body, { origin: 'person' });
  const rows = await until(
    async () => {
      const items = await itemRows(batch.id);
      return items.every((r) => r.status === 'waiting') && items;
    },
    15_000,
    'every item waiting',
  );
  return { agent, batch, rows };
}

describe('cancelling a batch ends its item runs’ waits in the same transaction', () => {
  it('each waiting run is cancelled with its interrupt kept and its conversation told; the Inbox is empty; every answer is refused; nothing runs', async () => {
    const ann = await makeUser('ann');
    const { batch, rows } = await waitingBatch(ann);
    const waitingRuns = await Promise.all(rows.map((r) => run(r.runId!)));
    expect(waitingRuns.map((r) => [r.status, (r.interrupt as { type: string }).type])).toEqual([
      ['interrupted', 'approval'],
      ['interrupted', 'clarification'],
    ]);
    expect(await inboxIds(ann.id)).toHaveLength(2);

    const told: string[] = [];
    const unsubscribe = rows.map((r) => subscribeConversation(r.conversationId!, (change) => told.push(...change.runIds)));
    try {
      const cancelled = await call(cancelRoute.POST, { method: 'POST', headers: ann.auth, params: { id: batch.id } });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.batch).toMatchObject({ status: 'cancelled', counts: { cancelled: 2, waiting: 0 } });
      // An open view of either conversation hears of it (it would otherwise keep offering Approve/Decline).
      await until(() => waitingRuns.every((r) => told.includes(r.id)), 5_000, 'both conversations to be told');
    } finally {
      for (const off of unsubscribe) off();
    }
    // No run waits any more; each keeps its interrupt, which says what was cancelled.
    for (const before of waitingRuns) expect(await run(before.id)).toMatchObject({ status: 'cancelled', interrupt: before.interrupt });
    expect(await inboxIds(ann.id)).toEqual([]);

    // Late answers: the item's answer (function and route), the Inbox's bulk answer, the conversation's own resume.
    await expect(answerItem(ann.id, batch.id, rows[0]!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({
      status: 409,
      code: 'not_waiting',
      message: CANCELLED,
    });
    const route = await call(answerRoute.POST, { method: 'POST', headers: ann.auth, params: { id: batch.id, itemId: rows[1]!.id }, body: { answer: 'EU', answerKey: key() } });
    expect(route.status).toBe(409);
    expect(route.body).toMatchObject({ error: { code: 'not_waiting', message: CANCELLED } });
    expect((await answerApprovals(ann.id, { ids: [`batch:${rows[0]!.id}`], decision: { approved: true }, bulkKey: key() })).outcomes[0]).toMatchObject({ ok: false });
    await expect(resume(ann.id, rows[0]!.conversationId!, { approved: true }, { idempotencyKey: key() })).rejects.toMatchObject({ status: 409 });
    for (const row of rows) expect((await runsOf(row.conversationId!)).map((r) => r.status)).toEqual(['cancelled']);
  });

  it('an answered item whose resume had not started yet: its run stops waiting too, and its held answer never runs', async () => {
    const bo = await makeUser('bo');
    const { batch, rows } = await waitingBatch(bo, [APPROVAL]);
    // No scheduler while the answer is held: the item stays queued with it, its run still the conversation's newest.
    await stopScheduler();
    try {
      await answerItem(bo.id, batch.id, rows[0]!.id, { response: { approved: true }, answerKey: key() });
      expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'queued', runId: null });
      expect((await run(rows[0]!.runId!)).status).toBe('interrupted');
      await cancelBatch(bo.id, batch.id);
      expect((await run(rows[0]!.runId!)).status).toBe('cancelled');
    } finally {
      startScheduler(teamJobs, { tickMs: 50, delegations: delegationPort, batches: batchPort });
    }
    expect((await itemRows(batch.id))[0]!.status).toBe('cancelled');
    expect((await runsOf(rows[0]!.conversationId!)).map((r) => [r.kind, r.status])).toEqual([['start', 'cancelled']]);
  });

  it('a run that stops for the person just after the cancel committed is ended when its item is finalized', async () => {
    const cy = await makeUser('cy');
    const { batch, rows } = await waitingBatch(cy, [APPROVAL]);
    // What such a cancel leaves: the item cancelled under its run, the run interrupted after the cancel's read.
    await writeTx((tx) => tx.update(schema.batchItems).set({ status: 'cancelled' }).where(eq(schema.batchItems.id, rows[0]!.id)));
    await writeTx((tx) => tx.update(schema.batches).set({ status: 'cancelled' }).where(eq(schema.batches.id, batch.id)));
    expect((await run(rows[0]!.runId!)).status).toBe('interrupted');
    await finalizeItem(rows[0]!.id);
    expect((await run(rows[0]!.runId!)).status).toBe('cancelled');
    // Once more changes nothing.
    await finalizeItem(rows[0]!.id);
    expect((await itemRows(batch.id))[0]).toMatchObject({ status: 'cancelled', runId: rows[0]!.runId });
    expect(await inboxIds(cy.id)).toEqual([]);
  });

  it('another owner can neither cancel the batch nor answer its items: 404, and every run still waits for its owner', async () => {
    const dee = await makeUser('dee');
    const eve = await makeUser('eve');
    const { batch, rows } = await waitingBatch(dee);
    const theirs = await call(cancelRoute.POST, { method: 'POST', headers: eve.auth, params: { id: batch.id } });
    expect(theirs.status).toBe(404);
    await expect(cancelBatch(eve.id, batch.id)).rejects.toMatchObject({ status: 404 });
    const answer = await call(answerRoute.POST, { method: 'POST', headers: eve.auth, params: { id: batch.id, itemId: rows[0]!.id }, body: { response: { approved: true }, answerKey: key() } });
    expect(answer.status).toBe(404);
    await expect(resume(eve.id, rows[0]!.conversationId!, { approved: true }, { idempotencyKey: key() })).rejects.toMatchObject({ status: 404 });
    expect((await batchRow(batch.id)).status).toBe('running');
    expect((await itemRows(batch.id)).map((r) => [r.status, r.lease])).toEqual(rows.map((r) => ['waiting', r.lease]));
    for (const row of rows) expect((await run(row.runId!)).status).toBe('interrupted');
    expect(await inboxIds(dee.id)).toHaveLength(2);
    expect(await inboxIds(eve.id)).toEqual([]);
    await cancelBatch(dee.id, batch.id);
  });
});

describe('re-running a cancelled batch after its waits were ended', () => {
  it('an item starts afresh in a new run that asks again (the old wait stays ended), is listed once, and finishes on one attempt', async () => {
    const fay = await makeUser('fay');
    const { batch, rows } = await waitingBatch(fay, [APPROVAL]);
    const old = rows[0]!;
    await cancelBatch(fay.id, batch.id);
    const rerun = await call(rerunRoute.POST, { method: 'POST', headers: fay.auth, params: { id: batch.id } });
    expect(rerun.status).toBe(200);

    // The re-run item inherits nothing of the ended wait: a new start in its conversation, waiting on a new run.
    const [again] = await until(
      async () => {
        const items = await itemRows(batch.id);
        return items[0]!.status === 'waiting' && items;
      },
      15_000,
      'the re-run item to wait again',
    );
    expect(again).toMatchObject({ conversationId: old.conversationId, attempts: 1, answer: null });
    expect(again!.runId).not.toBe(old.runId);
    expect(await runsOf(old.conversationId!)).toMatchObject([
      { id: old.runId, kind: 'start', status: 'cancelled' },
      { id: again!.runId, kind: 'start', status: 'interrupted' },
    ]);
    const inbox = (await readInbox(fay.id, { limit: 50 })).items;
    expect(inbox.map((i) => i.id)).toEqual([`batch:${old.id}`]);
    expect(inbox[0]!.waiting).toMatchObject({ type: 'interrupt', payload: { type: 'approval', tool: 'calculator' } });

    await answerItem(fay.id, batch.id, old.id, { response: { approved: true }, answerKey: key() });
    expect((await ended(batch.id)).status).toBe('completed');
    const [done] = await itemRows(batch.id);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
    expect(done!.result).toContain('[calculator] 6');
    // The ended wait was never resumed: the answer continued the new run.
    expect((await runsOf(old.conversationId!)).map((r) => [r.kind, r.status])).toEqual([
      ['start', 'cancelled'],
      ['start', 'interrupted'],
      ['resume', 'success'],
    ]);
  });
});
