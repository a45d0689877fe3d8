import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '@/lib/limits';
import type { BatchCreateInput } from '@/lib/schemas/batch';
import { recoverRuns } from '@/server/agents/recovery';
import { answerItem } from '@/server/batches/answer';
import { cancelBatch, retryFailed } from '@/server/batches/control';
import { releaseDeadProcessItems } from '@/server/batches/recovery';
import { countsOf, createBatch } from '@/server/batches/store';
import { getDb, schema, writeTx } from '@/server/db';
import { answerApprovals } from '@/server/inbox/bulk-answer';
import { readInbox } from '@/server/inbox/read';
import { subscribeInboxChanges } from '@/server/inbox/stream';
import { loadSchedulingView } from '@/server/scheduler/view';
import { startScheduler, stopScheduler } from '@/server/scheduler/runtime';
import { teamJobs } from '@/server/teams/scheduler-jobs';
import { delegationPort } from '@/server/agents/delegation/port';
import { batchPort } from '@/server/batches/port';
import * as answerRoute from '@/app/api/v1/batches/[id]/items/[itemId]/answer/route';
import * as batchRoute from '@/app/api/v1/batches/[id]/route';
import * as itemsRoute from '@/app/api/v1/batches/[id]/items/route';
import * as exportRoute from '@/app/api/v1/batches/[id]/export/route';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { batchRow, ended, itemRows, withBatchScheduler } from './helpers';

// One slot: a waiting item that held it would keep every other item (and every other owner's) from running.
const SLOTS = 1;
withBatchScheduler({ maxActive: SLOTS });

type User = Awaited<ReturnType<typeof makeUser>>;
const careful = (ownerId: string) => makeAgent(ownerId, { toolGroups: ['utility', 'clarify'], approvalTools: ['calculator'] });
const calls = (agentId: string, expressions: string[], concurrency = 1, maxAttempts = 1): BatchCreateInput => ({
  target: { agentId },
  template: '/call calculator {"expression":"{{v}}"}',
  columns: ['v'],
  items: expressions.map((v) => ({ v })),
  concurrency,
  maxAttempts,
});
const allWaiting = (batchId: string, n: number) =>
  until(
    async () => {
      const rows = await itemRows(batchId);
      return rows.filter((r) => r.status === 'waiting').length === n && rows;
    },
    15_000,
    `${n} waiting items`,
  );
const batchIds = async (ownerId: string) =>
  (await readInbox(ownerId, { limit: LIMITS.inbox.maxLimit })).items.filter((i) => i.where.source === 'batch').map((i) => i.id);
const runsOf = (conversationId: string) => getDb().select().from(schema.runs).where(eq(schema.runs.conversationId, conversationId));
const key = () => crypto.randomUUID();

async function waitingBatch(owner: User, expressions: string[], concurrency = 1, maxAttempts = 1) {
  const agent = await careful(owner.id);
  const { batch } = await createBatch(owner.id, calls(agent.id, expressions, concurrency, maxAttempts), { origin: 'person' });
  const rows = await allWaiting(batch.id, expressions.length);
  return { agent, batch, rows };
}

describe('a batch item whose run stops for the person waits in the Inbox', () => {
  it('waits holding no slot and no lease, is listed in the Inbox with its context, and finishes once approved, with no extra attempt', async () => {
    const ann = await makeUser('ann');
    // Three items, concurrency 2, one slot, maxAttempts 1: every item can only reach 'waiting' if each waiting one
    // gave its slot and its place in the batch's running limit back.
    const { agent, batch, rows } = await waitingBatch(ann, ['6*7', '2+3', '10-1'], 2, 1);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'waiting', attempts: 1, leaseExpiresAt: null });
      expect(row.runId).not.toBeNull();
      expect(row.waitingSince).toBeInstanceOf(Date);
    }
    expect((await countsOf([batch.id])).get(batch.id)).toMatchObject({ waiting: 3, running: 0, queued: 0 });
    expect((await batchRow(batch.id)).status).toBe('running');
    const view = await loadSchedulingView();
    expect(view.heldSlots.get(ann.id) ?? 0).toBe(0);
    expect(view.batchItems).toEqual([]);

    const page = await readInbox(ann.id, { limit: 10 });
    expect(page.total).toBe(3);
    expect(page.items.map((i) => i.id)).toEqual(rows.map((r) => `batch:${r.id}`));
    expect(page.items[0]).toMatchObject({
      where: { source: 'batch', batchId: batch.id, itemId: rows[0]!.id, index: 0, fields: { v: '6*7' }, targetName: agent.name, teamId: null },
      waiting: { type: 'interrupt', payload: { type: 'approval', tool: 'calculator', args: { expression: '6*7' } } },
    });

    // Approve two at once from the Inbox, the third through the answer the API and the batch page use.
    const bulk = await answerApprovals(ann.id, { ids: page.items.slice(0, 2).map((i) => i.id), decision: { approved: true }, bulkKey: key() });
    expect(bulk.outcomes).toEqual([
      { id: page.items[0]!.id, ok: true },
      { id: page.items[1]!.id, ok: true },
    ]);
    await answerItem(ann.id, batch.id, rows[2]!.id, { response: { approved: false, note: 'not this one' }, answerKey: key() });
    const done = await ended(batch.id);
    expect(done.status).toBe('completed');
    const after = await itemRows(batch.id);
    expect(after.map((r) => [r.status, r.attempts])).toEqual([
      ['done', 1],
      ['done', 1],
      ['done', 1],
    ]);
    expect(after[0]!.result).toContain('[calculator] 42');
    expect(after[1]!.result).toContain('[calculator] 5');
    // Declined: the tool never ran, and the item still ends with its run's answer.
    expect(after[2]!.result).not.toContain('[calculator] 9');
    // Each item: its first run (stopped at the approval) and the resume, nothing more.
    for (const row of after) expect((await runsOf(row.conversationId!)).map((r) => r.kind).sort()).toEqual(['resume', 'start']);
    expect(await batchIds(ann.id)).toEqual([]);
  });

  it('a question is answered with text; an approval answer or a second answer is refused and changes nothing', async () => {
    const bo = await makeUser('bo');
    const agent = await careful(bo.id);
    const { batch } = await createBatch(
      bo.id,
      { target: { agentId: agent.id }, template: '/ask Which region for {{v}}?', columns: ['v'], items: [{ v: 'ACME' }], concurrency: 1 },
      { origin: 'person' },
    );
    const [row] = await allWaiting(batch.id, 1);
    const [item] = (await readInbox(bo.id, { limit: 5 })).items;
    expect(item!.waiting).toMatchObject({ type: 'clarification', question: 'Which region for ACME?' });
    // Not an approval: the bulk refuses it, and a JSON response is not an answer to a question.
    expect((await answerApprovals(bo.id, { ids: [item!.id], decision: { approved: true }, bulkKey: key() })).outcomes[0]).toMatchObject({ ok: false, code: 'not_an_approval' });
    await expect(answerItem(bo.id, batch.id, row!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({ status: 422 });
    const answerKey = key();
    await answerItem(bo.id, batch.id, row!.id, { answer: 'EU 🇪🇺 欧州', answerKey });
    // The same answer again (a retried request) is the same answer; a different one finds nothing waiting.
    await answerItem(bo.id, batch.id, row!.id, { answer: 'EU 🇪🇺 欧州', answerKey });
    await expect(answerItem(bo.id, batch.id, row!.id, { answer: 'US', answerKey: key() })).rejects.toMatchObject({ status: 409, code: 'not_waiting' });
    await ended(batch.id);
    const [done] = await itemRows(batch.id);
    expect(done).toMatchObject({ status: 'done', attempts: 1 });
    expect(done!.result).toContain('EU 🇪🇺 欧州');
  });

  it('cancelling the batch ends its waiting items: out of the Inbox, nothing answerable, nothing run', async () => {
    const cy = await makeUser('cy');
    const { batch, rows } = await waitingBatch(cy, ['1+1', '2+2'], 2);
    expect(await batchIds(cy.id)).toHaveLength(2);
    const cancelled = await cancelBatch(cy.id, batch.id);
    expect(cancelled.status).toBe('cancelled');
    const after = await itemRows(batch.id);
    expect(after.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
    expect(await batchIds(cy.id)).toEqual([]);
    await expect(answerItem(cy.id, batch.id, rows[0]!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({ status: 409 });
    expect((await answerApprovals(cy.id, { ids: [`batch:${rows[1]!.id}`], decision: { approved: true }, bulkKey: key() })).outcomes[0]).toMatchObject({
      ok: false,
      code: 'already_answered',
    });
    // Neither answer resumed anything: each conversation still has only its first run.
    for (const row of after) expect(await runsOf(row.conversationId!)).toHaveLength(1);
  });

  it('retrying a failed item drops an answer it still held: the retry starts the item afresh, never resumes a stale question', async () => {
    const kim = await makeUser('kim');
    const { batch, rows } = await waitingBatch(kim, ['2*2']);
    // An item that failed after its answer was taken but before its run resumed (e.g. its question changed).
    const held = { type: 'interrupt', response: { approved: true }, answerKey: key() };
    await writeTx((tx) => tx.update(schema.batchItems).set({ status: 'failed', answer: held, runId: null, error: 'x' }).where(eq(schema.batchItems.id, rows[0]!.id)));
    await retryFailed(kim.id, batch.id);
    const [after] = await itemRows(batch.id);
    expect(after!.answer).toBeNull();
    expect(after!.attempts).toBe(0);
    await cancelBatch(kim.id, batch.id);
  });

  it('another owner can neither see a waiting item nor answer it, through the answer or the bulk: nothing of it changes', async () => {
    const dee = await makeUser('dee');
    const eve = await makeUser('eve');
    const { batch, rows } = await waitingBatch(dee, ['3*3']);
    const id = `batch:${rows[0]!.id}`;
    expect(await batchIds(eve.id)).toEqual([]);
    expect((await readInbox(eve.id, { limit: 5 })).total).toBe(0);
    await expect(answerItem(eve.id, batch.id, rows[0]!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({ status: 404 });
    await expect(answerItem(eve.id, null, rows[0]!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({ status: 404 });
    expect((await answerApprovals(eve.id, { ids: [id], decision: { approved: true }, bulkKey: key() })).outcomes[0]).toMatchObject({ ok: false, code: 'not_found' });
    // The owner's item under another of the owner's batch ids is not found either (the id pair must match).
    await expect(answerItem(dee.id, crypto.randomUUID(), rows[0]!.id, { response: { approved: true }, answerKey: key() })).rejects.toMatchObject({ status: 404 });
    const [still] = await itemRows(batch.id);
    expect(still).toMatchObject({ status: 'waiting', answer: null, lease: rows[0]!.lease });
    expect(await batchIds(dee.id)).toEqual([id]);
    await cancelBatch(dee.id, batch.id);
  });

  it('the inbox stream is told when an item starts waiting and when it is answered, and only its owner’s', async () => {
    const fay = await makeUser('fay');
    const gus = await makeUser('gus');
    let fays = 0;
    let guss = 0;
    const offFay = subscribeInboxChanges(fay.id, () => (fays += 1));
    const offGus = subscribeInboxChanges(gus.id, () => (guss += 1));
    try {
      const { batch, rows } = await waitingBatch(fay, ['4*4']);
      const seen = fays;
      await answerItem(fay.id, batch.id, rows[0]!.id, { response: { approved: true }, answerKey: key() });
      await until(() => fays > seen, 5_000, 'a message for the answer');
      await ended(batch.id);
      expect(guss).toBe(0);
    } finally {
      offFay();
      offGus();
    }
  });
});

describe('the API shows and answers waiting items', () => {
  it('counts, the items filter and the export say waiting; the answer route resumes the item; another owner gets 404', async () => {
    const ivy = await makeUser('ivy');
    const jon = await makeUser('jon');
    const { batch, rows } = await waitingBatch(ivy, ['5*5', '6*6'], 2);
    const one = await call(batchRoute.GET, { headers: ivy.auth, params: { id: batch.id } });
    expect(one.body.batch).toMatchObject({ status: 'running', counts: { waiting: 2, running: 0, queued: 0, done: 0 } });
    const waiting = await call(itemsRoute.GET, { headers: ivy.auth, params: { id: batch.id }, url: 'http://localhost/x?status=waiting' });
    expect(waiting.status).toBe(200);
    expect((waiting.body.items as Array<{ id: string; status: string }>).map((i) => [i.id, i.status])).toEqual(rows.map((r) => [r.id, 'waiting']));
    const exported = await (
      await exportRoute.GET(new Request('http://localhost/x?format=jsonl', { headers: ivy.auth }), { params: Promise.resolve({ id: batch.id }) })
    ).text();
    expect(exported.trim().split('\n').map((line) => (JSON.parse(line) as { status: string }).status)).toEqual(['waiting', 'waiting']);

    const body = { response: { approved: true }, answerKey: key() };
    const theirs = await call(answerRoute.POST, { method: 'POST', headers: jon.auth, params: { id: batch.id, itemId: rows[0]!.id }, body });
    expect(theirs.status).toBe(404);
    expect((await itemRows(batch.id))[0]!.status).toBe('waiting');
    const bad = await call(answerRoute.POST, { method: 'POST', headers: ivy.auth, params: { id: batch.id, itemId: rows[0]!.id }, body: { response: { approved: 'yes' }, answerKey: key() } });
    expect(bad.status).toBe(422);
    // Text sent to an approval: the refusal says what an approval takes, not only "JSON".
    const text = await call(answerRoute.POST, { method: 'POST', headers: ivy.auth, params: { id: batch.id, itemId: rows[0]!.id }, body: { answer: 'yes', answerKey: key() } });
    expect(text.status).toBe(422);
    expect(text.body).toMatchObject({ error: { fields: { response: 'This item waits for an approval: send response { "approved": true or false, "note"?: text }, not an answer' } } });
    for (const row of rows) {
      const ok = await call(answerRoute.POST, { method: 'POST', headers: ivy.auth, params: { id: batch.id, itemId: row.id }, body: { response: { approved: true }, answerKey: key() } });
      expect(ok.status).toBe(200);
      expect(ok.body.item).toMatchObject({ id: row.id, attempts: 1 });
    }
    await ended(batch.id);
    const done = await call(batchRoute.GET, { headers: ivy.auth, params: { id: batch.id } });
    expect(done.body.batch).toMatchObject({ status: 'completed', counts: { waiting: 0, done: 2 } });
  });
});

describe('a crash while items wait loses nothing', () => {
  it('start-up recovery neither requeues nor fails a waiting item; after the restart it is answered and finishes on its one attempt', async () => {
    const hal = await makeUser('hal');
    const { batch, rows } = await waitingBatch(hal, ['7*6', '8*8'], 2);
    // The process stops (its scheduler with it) and a new one starts: runs recovered, dead processes' items released.
    await stopScheduler();
    try {
      await recoverRuns();
      expect(await releaseDeadProcessItems()).toBe(0);
      const after = await itemRows(batch.id);
      expect(after.map((r) => ({ status: r.status, attempts: r.attempts, runId: r.runId, lease: r.lease }))).toEqual(
        rows.map((r) => ({ status: 'waiting', attempts: 1, runId: r.runId, lease: r.lease })),
      );
      for (const row of after) expect((await runsOf(row.conversationId!)).map((r) => r.status)).toEqual(['interrupted']);
    } finally {
      startScheduler(teamJobs, { tickMs: 50, maxActive: SLOTS, delegations: delegationPort, batches: batchPort });
    }
    // The restarted scheduler leaves them waiting too.
    const view = await loadSchedulingView();
    expect(view.heldSlots.get(hal.id) ?? 0).toBe(0);
    expect(await batchIds(hal.id)).toHaveLength(2);
    const bulk = await answerApprovals(hal.id, { ids: rows.map((r) => `batch:${r.id}`), decision: { approved: true }, bulkKey: key() });
    expect(bulk.outcomes.every((o) => o.ok)).toBe(true);
    await ended(batch.id);
    expect((await itemRows(batch.id)).map((r) => [r.status, r.attempts])).toEqual([
      ['done', 1],
      ['done', 1],
    ]);
  });
});
