import { describe, expect, it } from 'vitest';
import * as batchesRoute from '@/app/api/v1/batches/route';
import * as batchRoute from '@/app/api/v1/batches/[id]/route';
import * as itemsRoute from '@/app/api/v1/batches/[id]/items/route';
import * as exportRoute from '@/app/api/v1/batches/[id]/export/route';
import * as cancelRoute from '@/app/api/v1/batches/[id]/cancel/route';
import * as retryRoute from '@/app/api/v1/batches/[id]/retry-failed/route';
import * as eventsRoute from '@/app/api/v1/batches/[id]/events/route';
import * as conversationRoute from '@/app/api/v1/conversations/[id]/route';
import * as messagesRoute from '@/app/api/v1/conversations/[id]/messages/route';
import { LIMITS } from '@/lib/limits';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { ended, itemRows, withBatchScheduler } from './helpers';

withBatchScheduler();

const B = LIMITS.batch;
const body = (agentId: string, over: Record<string, unknown> = {}) => ({
  target: { agentId },
  template: '/reply {{name}} is {{mood}}',
  columns: ['name', 'mood'],
  items: [
    { name: 'Ann', mood: 'glad' },
    { name: '李', mood: '开心' },
    { name: 'Zoë 🎉', mood: 'quoted, "really"' },
  ],
  concurrency: 2,
  ...over,
});
/** A download (not JSON): the handler's response as text. */
async function download(auth: Record<string, string>, id: string, format: string) {
  const res = await exportRoute.GET(new Request(`http://localhost/x?format=${format}`, { headers: auth }), { params: Promise.resolve({ id }) });
  return { status: res.status, headers: res.headers, raw: await res.text() };
}
const post = (auth: Record<string, string>, b: unknown) => call(batchesRoute.POST, { method: 'POST', headers: auth, body: b });

describe('POST /api/v1/batches: a durable batch over a list, run to the end through the scheduler', () => {
  it('runs every item once as its own child run and stores each answer; lists, pages, filters and exports', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id, { name: 'Writer' });
    const res = await post(alice.auth, { ...body(agent.id), idempotencyKey: 'k1' });
    expect(res.status).toBe(201);
    const batch = res.body.batch as { id: string; total: number; target: unknown; origin: string; maxAttempts: number };
    expect(batch).toMatchObject({ total: 3, origin: 'person', maxAttempts: 3, target: { kind: 'agent', agentId: agent.id, name: 'Writer' } });
    // The same key answers the same batch, never a second one.
    const again = await post(alice.auth, { ...body(agent.id), idempotencyKey: 'k1' });
    expect(again.status).toBe(200);
    expect((again.body.batch as { id: string }).id).toBe(batch.id);

    await ended(batch.id);
    const items = await itemRows(batch.id);
    expect(items.map((i) => [i.status, i.attempts, i.result])).toEqual([
      ['done', 1, 'Ann is glad'],
      ['done', 1, '李 is 开心'],
      ['done', 1, 'Zoë 🎉 is quoted, "really"'],
    ]);
    // Each item ran on its own conversation (hidden from the list), none twice.
    expect(new Set(items.map((i) => i.conversationId)).size).toBe(3);

    const one = await call(batchRoute.GET, { headers: alice.auth, params: { id: batch.id } });
    expect(one.body.batch).toMatchObject({ status: 'completed', counts: { queued: 0, running: 0, done: 3, failed: 0, cancelled: 0 } });
    const list = await call(batchesRoute.GET, { headers: alice.auth, url: 'http://localhost/api/v1/batches?limit=1' });
    expect((list.body.batches as Array<{ id: string }>).map((b) => b.id)).toEqual([batch.id]);

    const page1 = await call(itemsRoute.GET, { headers: alice.auth, params: { id: batch.id }, url: 'http://localhost/x?limit=2' });
    expect((page1.body.items as Array<{ index: number }>).map((i) => i.index)).toEqual([0, 1]);
    const page2 = await call(itemsRoute.GET, { headers: alice.auth, params: { id: batch.id }, url: `http://localhost/x?limit=2&cursor=${page1.body.nextCursor}` });
    expect((page2.body.items as Array<{ index: number }>).map((i) => i.index)).toEqual([2]);
    expect(page2.body.nextCursor).toBeNull();
    const failedOnly = await call(itemsRoute.GET, { headers: alice.auth, params: { id: batch.id }, url: 'http://localhost/x?status=failed' });
    expect(failedOnly.body.items).toEqual([]);
    const badStatus = await call(itemsRoute.GET, { headers: alice.auth, params: { id: batch.id }, url: 'http://localhost/x?status=nope' });
    expect(badStatus.status).toBe(422);

    const jsonl = await download(alice.auth, batch.id, 'jsonl');
    expect(jsonl.headers.get('content-disposition')).toContain('attachment');
    const rows = jsonl.raw.trim().split('\n').map((l) => JSON.parse(l) as { index: number; input: Record<string, string>; result: string });
    expect(rows.map((r) => [r.index, r.input.name, r.result])).toEqual([
      [0, 'Ann', 'Ann is glad'],
      [1, '李', '李 is 开心'],
      [2, 'Zoë 🎉', 'Zoë 🎉 is quoted, "really"'],
    ]);
    const csv = await download(alice.auth, batch.id, 'csv');
    expect(csv.raw.split('\r\n')[0]).toBe('index,status,attempts,name,mood,result,truncated,error');
    // Quotes doubled inside a quoted field: the CSV reads back as the same text.
    expect(csv.raw).toContain('"quoted, ""really"""');
  });

  it('refuses bad input naming the field or row, and nothing is created', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ template: 'Hi {{nope}}' }, 'template', /\{\{nope\}\}/],
      [{ columns: ['name', 'mood', 'name'] }, 'columns.2', /Duplicate column "name"/],
      [{ items: [] }, 'items', /At least one item/],
      [{ items: [{ name: 'a', mood: 'b' }, { name: 'only' }] }, 'items.1', /^Row 2: missing "mood"/],
      [{ items: [{ name: 'a', mood: 'b', extra: 'x' }] }, 'items.0', /not a column: "extra"/],
      [{ concurrency: B.maxConcurrency + 1 }, 'concurrency', /at most/],
      [{ concurrency: 0 }, 'concurrency', /at least 1/],
      [{ maxAttempts: B.attempts.max + 1 }, 'maxAttempts', /at most/],
    ];
    for (const [over, field, message] of cases) {
      const res = await post(alice.auth, body(agent.id, over));
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect((res.body.error as { fields: Record<string, string> }).fields[field], field).toMatch(message);
    }
    const list = await call(batchesRoute.GET, { headers: alice.auth });
    expect(list.body.batches).toEqual([]);
  });

  it('counts rows from 1 in its messages, as the browser does, at the first and the last row (the path stays the index)', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const full = () => Array.from({ length: B.maxItems }, (_, i) => ({ name: `n${i}`, mood: 'm' }));
    const first = full();
    first[0] = { name: 'only' } as (typeof first)[number];
    const last = full();
    last[B.maxItems - 1] = { name: 'only' } as (typeof last)[number];
    const atFirst = await post(alice.auth, body(agent.id, { items: first }));
    expect(atFirst.status).toBe(422);
    expect((atFirst.body.error as { fields: Record<string, string> }).fields).toMatchObject({ 'items.0': 'Row 1: missing "mood"' });
    const atLast = await post(alice.auth, body(agent.id, { items: last }));
    expect(atLast.status).toBe(422);
    const fields = (atLast.body.error as { fields: Record<string, string> }).fields;
    expect(fields[`items.${B.maxItems - 1}`]).toBe(`Row ${B.maxItems}: missing "mood"`);
    // No message anywhere counts from 0.
    expect(Object.values(fields).join('\n')).not.toMatch(/Row 0\b/);
  });

  it('bounds an item at LIMITS.batch.itemBytes and the template at its bytes, in ASCII, CJK and emoji (the limit passes, one past does not)', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const itemFits = (value: string) => post(alice.auth, { target: { agentId: agent.id }, template: '{{v}}', columns: ['v'], items: [{ v: value }], concurrency: 1 });
    const units: Array<[string, number]> = [['a', 1], ['语', 3], ['😀', 4]];
    for (const [unit, bytes] of units) {
      const n = B.itemBytes / bytes;
      const at = await itemFits(unit.repeat(n));
      expect(at.status, `${unit} at the limit`).toBe(201);
      await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: (at.body.batch as { id: string }).id } });
      const past = await itemFits(unit.repeat(n) + 'a');
      expect(past.status, `${unit} one past`).toBe(422);
      expect((past.body.error as { fields: Record<string, string> }).fields['items.0']).toMatch(/^Row 1: values are/);
      const tAt = await post(alice.auth, { target: { agentId: agent.id }, template: unit.repeat(B.template.maxBytes / bytes), columns: ['v'], items: [{ v: 'x' }], concurrency: 1 });
      expect(tAt.status, `${unit} template at the limit`).toBe(201);
      await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: (tAt.body.batch as { id: string }).id } });
      const tPast = await post(alice.auth, { target: { agentId: agent.id }, template: unit.repeat(B.template.maxBytes / bytes) + 'a', columns: ['v'], items: [{ v: 'x' }], concurrency: 1 });
      expect(tPast.status).toBe(422);
      expect((tPast.body.error as { fields: Record<string, string> }).fields.template).toMatch(/at most/);
    }
  });

  it('takes LIMITS.batch.maxItems items and refuses one more', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ v: String(i) }));
    const past = await post(alice.auth, { target: { agentId: agent.id }, template: '{{v}}', columns: ['v'], items: items(B.maxItems + 1), concurrency: 1 });
    expect(past.status).toBe(422);
    expect((past.body.error as { fields: Record<string, string> }).fields.items).toMatch(/At most 1,000 items/);
    const at = await post(alice.auth, { target: { agentId: agent.id }, template: '{{v}}', columns: ['v'], items: items(B.maxItems), concurrency: 1 });
    expect(at.status).toBe(201);
    const id = (at.body.batch as { id: string }).id;
    const cancelled = await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id } });
    expect(cancelled.body.batch).toMatchObject({ status: 'cancelled', total: B.maxItems });
    const counts = (cancelled.body.batch as { counts: { queued: number; running: number; done: number; failed: number; cancelled: number } }).counts;
    // Every item ended at once: none left queued or running, none lost.
    expect(counts.queued + counts.running).toBe(0);
    expect(counts.cancelled + counts.done + counts.failed).toBe(B.maxItems);
  });

  it('a flood of creations stops at LIMITS.batch.livePerOwner unfinished batches (429), for that account only', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const agent = await makeAgent(alice.id);
    const bobAgent = await makeAgent(bob.id);
    const slow = { template: '/sleep 3000\n/reply {{name}}', concurrency: 1 };
    const results = await Promise.all(Array.from({ length: B.livePerOwner + 3 }, () => post(alice.auth, body(agent.id, slow))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(B.livePerOwner);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(3);
    expect((refused[0]!.body.error as { code: string }).code).toBe('batch_limit');
    // Bob is not held back by Alice's flood.
    expect((await post(bob.auth, body(bobAgent.id, slow))).status).toBe(201);
    for (const r of results.filter((x) => x.status === 201)) {
      await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id: (r.body.batch as { id: string }).id } });
    }
  });

  it('an item’s conversation is read, not continued or deleted: the refusal names the batch; another owner gets 404', async () => {
    const alice = await makeUser('alice');
    const eve = await makeUser('eve');
    const agent = await makeAgent(alice.id, { name: 'Writer' });
    const created = await post(alice.auth, body(agent.id, { items: [{ name: 'Ann', mood: 'glad' }] }));
    const id = (created.body.batch as { id: string }).id;
    await ended(id);
    const [item] = await itemRows(id);
    const params = { id: item!.conversationId! };
    const read = await call(conversationRoute.GET, { headers: alice.auth, params });
    expect(read.body).toMatchObject({ batch: { id } });

    const sent = await call(messagesRoute.POST, { method: 'POST', headers: alice.auth, body: { text: '/reply more', idempotencyKey: 'more' }, params });
    expect(sent.status).toBe(409);
    expect(sent.body).toMatchObject({ error: { code: 'delegated_conversation', message: expect.stringContaining(`an item of batch ${id}`) } });
    // Must not say it is a delegated child run's, nor that it goes with a batch delete (there is none).
    expect(String((sent.body.error as { message: string }).message)).not.toContain('delegated');
    const deleted = await call(conversationRoute.DELETE, { method: 'DELETE', headers: alice.auth, params });
    expect(deleted.status).toBe(409);
    expect(deleted.body).toMatchObject({ error: { code: 'delegated_conversation', message: `This conversation runs an item of batch ${id}; it is part of the batch's record and can't be deleted on its own` } });

    // Nothing ran and nothing went: the item's one run, its conversation still there.
    expect((await call(conversationRoute.GET, { headers: alice.auth, params })).status).toBe(200);
    expect((await itemRows(id))[0]).toMatchObject({ status: 'done', attempts: 1, runId: item!.runId });
    // Another owner: 404 for all three, as for a missing conversation, never the batch's id.
    for (const res of [
      await call(conversationRoute.GET, { headers: eve.auth, params }),
      await call(messagesRoute.POST, { method: 'POST', headers: eve.auth, body: { text: '/reply more', idempotencyKey: 'eve' }, params }),
      await call(conversationRoute.DELETE, { method: 'DELETE', headers: eve.auth, params }),
    ]) {
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body)).not.toContain(id);
    }
  });

  it('another owner’s batch answers 404 on every route and cannot be cancelled or retried; another owner’s agent is not a target', async () => {
    const alice = await makeUser('alice');
    const eve = await makeUser('eve');
    const agent = await makeAgent(alice.id);
    const created = await post(alice.auth, body(agent.id, { template: '/fail nope {{name}}', maxAttempts: 1 }));
    const id = (created.body.batch as { id: string }).id;
    await ended(id);
    const params = { id };
    expect((await call(batchRoute.GET, { headers: eve.auth, params })).status).toBe(404);
    expect((await call(itemsRoute.GET, { headers: eve.auth, params })).status).toBe(404);
    expect((await call(exportRoute.GET, { headers: eve.auth, params, url: 'http://localhost/x?format=jsonl' })).status).toBe(404);
    expect((await call(cancelRoute.POST, { method: 'POST', headers: eve.auth, params })).status).toBe(404);
    expect((await call(retryRoute.POST, { method: 'POST', headers: eve.auth, params })).status).toBe(404);
    expect((await call(eventsRoute.GET, { headers: eve.auth, params })).status).toBe(404);
    expect((await call(batchesRoute.GET, { headers: eve.auth })).body.batches).toEqual([]);
    // Eve's retry changed nothing: Alice's failed items stay failed.
    expect((await itemRows(id)).map((i) => i.status)).toEqual(['failed', 'failed', 'failed']);
    const foreignTarget = await post(eve.auth, body(agent.id));
    expect(foreignTarget.status).toBe(404);
  });
});
