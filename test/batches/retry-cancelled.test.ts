import { describe, expect, it } from 'vitest';
import * as batchesRoute from '@/app/api/v1/batches/route';
import * as batchRoute from '@/app/api/v1/batches/[id]/route';
import * as cancelRoute from '@/app/api/v1/batches/[id]/cancel/route';
import * as retryRoute from '@/app/api/v1/batches/[id]/retry-failed/route';
import * as rerunRoute from '@/app/api/v1/batches/[id]/retry-cancelled/route';
import { makeAgent } from '../agents/helpers';
import { call } from '../support/teams';
import { makeUser } from '../support/users';
import { until } from '../support/wait';
import { batchRow, ended, itemRows, withBatchScheduler } from './helpers';

withBatchScheduler();

const post = (auth: Record<string, string>, b: unknown) => call(batchesRoute.POST, { method: 'POST', headers: auth, body: b });
const statuses = async (id: string) => (await itemRows(id)).map((i) => i.status);

/**
 * A batch cancelled half way: the first item done, the second failed (one attempt), the third stopped while it ran
 * and the fourth never started.
 */
async function cancelledHalfWay(auth: Record<string, string>, agentId: string) {
  const res = await post(auth, {
    target: { agentId },
    template: '/sleep {{ms}}\n{{cmd}} {{name}}',
    columns: ['ms', 'cmd', 'name'],
    items: [
      { ms: '1', cmd: '/reply', name: 'Ann' },
      { ms: '1', cmd: '/fail', name: 'Bo' },
      { ms: '4000', cmd: '/reply', name: '李 🎉' },
      { ms: '1', cmd: '/reply', name: 'Zoë' },
    ],
    concurrency: 1,
    maxAttempts: 1,
  });
  expect(res.status).toBe(201);
  const id = (res.body.batch as { id: string }).id;
  await until(async () => (await statuses(id))[2] === 'running', 10_000, 'the third item to run');
  const cancelled = await call(cancelRoute.POST, { method: 'POST', headers: auth, params: { id } });
  expect(cancelled.body.batch).toMatchObject({ status: 'cancelled', counts: { done: 1, failed: 1, cancelled: 2 } });
  expect(await statuses(id)).toEqual(['done', 'failed', 'cancelled', 'cancelled']);
  return id;
}

describe('POST /api/v1/batches/:id/retry-cancelled: a cancelled batch re-runs what it left undone', () => {
  it('queues the cancelled and failed items with a fresh budget, keeps the done one, and runs to the end', async () => {
    const alice = await makeUser('alice');
    const agent = await makeAgent(alice.id, { name: 'Writer' });
    const id = await cancelledHalfWay(alice.auth, agent.id);
    const doneBefore = (await itemRows(id))[0]!;

    // Retry failed still leaves a cancelled batch alone, and says what to do instead.
    const retried = await call(retryRoute.POST, { method: 'POST', headers: alice.auth, params: { id } });
    expect(retried.status).toBe(409);
    expect(retried.body).toMatchObject({ error: { code: 'batch_cancelled', message: expect.stringContaining('re-run its cancelled and failed items') } });

    const rerun = await call(rerunRoute.POST, { method: 'POST', headers: alice.auth, params: { id } });
    expect(rerun.status).toBe(200);
    expect(rerun.body.batch).toMatchObject({ status: 'running', counts: { done: 1, cancelled: 0 } });
    const queued = await itemRows(id);
    expect(queued.slice(1).map((i) => [i.status === 'queued' || i.status === 'running', i.error])).toEqual([
      [true, null],
      [true, null],
      [true, null],
    ]);

    const end = await ended(id);
    expect(end.status).toBe('completed');
    const items = await itemRows(id);
    expect(items.map((i) => [i.status, i.attempts])).toEqual([
      ['done', 1],
      ['failed', 1],
      ['done', 1],
      ['done', 1],
    ]);
    // The done item was never run again.
    expect(items[0]).toMatchObject({ result: doneBefore.result, runId: doneBefore.runId });
    expect(items.slice(2).map((i) => i.result)).toEqual(['李 🎉', 'Zoë']);

    // Only a cancelled batch re-runs: this one completed.
    const again = await call(rerunRoute.POST, { method: 'POST', headers: alice.auth, params: { id } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: 'batch_not_cancelled' } });
  });

  it('another owner’s batch id answers 404 and changes nothing', async () => {
    const alice = await makeUser('alice');
    const eve = await makeUser('eve');
    const agent = await makeAgent(alice.id);
    const created = await post(alice.auth, { target: { agentId: agent.id }, template: '/sleep 4000\n/reply {{n}}', columns: ['n'], items: [{ n: 'a' }, { n: 'b' }], concurrency: 1 });
    const id = (created.body.batch as { id: string }).id;
    expect((await call(cancelRoute.POST, { method: 'POST', headers: alice.auth, params: { id } })).body.batch).toMatchObject({ status: 'cancelled' });
    const before = { batch: await batchRow(id), items: await itemRows(id) };

    const res = await call(rerunRoute.POST, { method: 'POST', headers: eve.auth, params: { id } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: 'not_found' } });
    expect(await batchRow(id)).toEqual(before.batch);
    expect(await itemRows(id)).toEqual(before.items);
    expect((await call(batchRoute.GET, { headers: eve.auth, params: { id } })).status).toBe(404);
    // A missing id is the same answer.
    expect((await call(rerunRoute.POST, { method: 'POST', headers: eve.auth, params: { id: crypto.randomUUID() } })).status).toBe(404);
  });
});
