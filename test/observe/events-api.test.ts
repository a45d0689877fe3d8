import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as eventsRoute } from '@/app/api/v1/runs/[id]/events/route';
import { LIMITS } from '@/lib/limits';
import type { ApiRunEventsPage } from '@/lib/types/run-events';
import { databaseFingerprint } from '../security/support';
import { makeUser } from '../support/users';
import { start } from '@/server/agents/runs';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { conversationWith, finished, send, until } from '../agents/helpers';
import { eventsOf, expectDense } from './helpers';

type TestUser = Awaited<ReturnType<typeof makeUser>>;
const gate = registerGateTool();
type ErrorBody = { error: { code: string; fields?: Record<string, string> } };

const events = (user: TestUser, runId: string, query = '') =>
  eventsRoute(new Request(`http://localhost/api/v1/runs/${runId}/events${query}`, { headers: user.auth }), { params: Promise.resolve({ id: runId }) });

async function page(user: TestUser, runId: string, query: string): Promise<ApiRunEventsPage> {
  const res = await events(user, runId, query);
  expect(res.status).toBe(200);
  return (await res.json()) as ApiRunEventsPage;
}

async function fields(res: Response): Promise<Record<string, string>> {
  expect(res.status).toBe(422);
  return ((await res.json()) as ErrorBody).error.fields ?? {};
}

/**
 * 70 tool turns and a reply: 3 events per turn plus the edges, over 200 in all. The two tools alternate, so the loop
 * guard (one tool 20 times in a row) lets the run go on.
 */
const CALLS = 70;
const script = [...Array.from({ length: CALLS }, (_, i) => (i % 2 ? '/call current_time' : `/call calculator {"expression":"${i}+1"}`)), '/reply done'].join('\n');

describe('GET /api/v1/runs/:id/events', () => {
  let ann: TestUser;
  let bob: TestUser;
  let runId: string;
  let total: number;

  beforeAll(async () => {
    ann = await makeUser('ann');
    bob = await makeUser('bob');
    const { conversation } = await conversationWith(ann.id, { toolGroups: ['utility'], maxTurns: CALLS + 5 });
    const run = await send(ann.id, conversation.id, script);
    expect(run.status).toBe('success');
    runId = run.id;
    total = (await eventsOf(runId)).length;
    expect(total).toBe(1 + 3 * CALLS + 2 + 1); // run.started, (model.call, step.assistant, step.tool) × 70, the reply's two, run.finished
  }, 60_000);

  it('answers the default page (100) from the start, with nextAfter and hasMore to follow it', async () => {
    const first = await page(ann, runId, '');
    expect(first.events).toHaveLength(LIMITS.runEvents.page.default);
    expect(first.events.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(first).toMatchObject({ runId, nextAfter: 100, hasMore: true, finished: true });
    expect(first.events[0]).toMatchObject({ type: 'run.started', runId, seq: 1, kind: 'start', model: 'scripted' });
    expect(Date.parse(first.events[0]!.at)).not.toBeNaN();
  });

  it('pages forward with after and limit=1 and limit=200 until nothing is left', async () => {
    const one = await page(ann, runId, '?after=5&limit=1');
    expect(one.events.map((e) => e.seq)).toEqual([6]);
    expect(one).toMatchObject({ nextAfter: 6, hasMore: true });

    const big = await page(ann, runId, '?after=0&limit=200');
    expect(big.events).toHaveLength(200);
    expect(big).toMatchObject({ nextAfter: 200, hasMore: true });
    const rest = await page(ann, runId, `?after=${big.nextAfter}&limit=200`);
    expect(rest.events.map((e) => e.seq)).toEqual(Array.from({ length: total - 200 }, (_, i) => 201 + i));
    expect(rest).toMatchObject({ nextAfter: total, hasMore: false, finished: true });
    expect(rest.events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'completed' });
    expectDense([...big.events, ...rest.events]);

    const past = await page(ann, runId, `?after=${total}`);
    expect(past).toMatchObject({ events: [], nextAfter: total, hasMore: false });
  });

  it('refuses limit 0 and 201, a negative or non-numeric after, and unknown parameters, naming the field (422)', async () => {
    expect(Object.keys(await fields(await events(ann, runId, '?limit=0')))).toEqual(['limit']);
    expect(Object.keys(await fields(await events(ann, runId, '?limit=201')))).toEqual(['limit']);
    expect(Object.keys(await fields(await events(ann, runId, '?limit=1.5')))).toEqual(['limit']);
    expect(Object.keys(await fields(await events(ann, runId, '?after=-1')))).toEqual(['after']);
    expect(Object.keys(await fields(await events(ann, runId, '?after=abc')))).toEqual(['after']);
    // A number past the largest event seq (a 32-bit column on Postgres) is too large, not "not a whole number", and
    // never reaches the database as a 500; the largest itself is an empty page.
    expect(await fields(await events(ann, runId, `?after=${'9'.repeat(20)}`))).toEqual({ after: 'Must be at most 2147483647' });
    expect(await fields(await events(ann, runId, '?after=2147483648'))).toEqual({ after: 'Must be at most 2147483647' });
    expect((await page(ann, runId, '?after=2147483647')).events).toEqual([]);
    expect(Object.keys(await fields(await events(ann, runId, '?cursor=3')))).toEqual(['cursor']);
  });

  it("another owner gets 404 exactly like a missing run, sees no event, and nothing changes", async () => {
    const before = await databaseFingerprint();
    const res = await events(bob, runId, '?after=0&limit=200');
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'not_found' } });
    expect(text).not.toContain('run.started');
    const missing = await events(bob, crypto.randomUUID());
    expect(missing.status).toBe(404);
    expect(await databaseFingerprint()).toBe(before);
  });

  it('follows a live run: a page during the run says not finished, the next page from nextAfter brings the rest once', async () => {
    const { conversation } = await conversationWith(ann.id, { toolGroups: [GATE_GROUP] });
    gate.close();
    const { run } = await start(ann.id, conversation.id, { text: '/call hold {}\n/reply after the hold' }, { idempotencyKey: crypto.randomUUID() });
    await until(async () => gate.entered === 1);
    // The model step is saved before the tool step starts: its events are visible while the tool holds.
    const live = await page(ann, run.id, '');
    expect(live.events.map((e) => e.type)).toEqual(['run.started', 'model.call', 'step.assistant']);
    expect(live).toMatchObject({ nextAfter: 3, hasMore: false, finished: false });
    gate.open();
    expect((await finished(run.id)).status).toBe('success');
    const rest = await page(ann, run.id, `?after=${live.nextAfter}`);
    expect(rest.events.map((e) => [e.seq, e.type])).toEqual([
      [4, 'step.tool'],
      [5, 'model.call'],
      [6, 'step.assistant'],
      [7, 'run.finished'],
    ]);
    expect(rest).toMatchObject({ nextAfter: 7, hasMore: false, finished: true });
  });

  it('without a session or token → 401', async () => {
    const res = await eventsRoute(new Request(`http://localhost/api/v1/runs/${runId}/events`), { params: Promise.resolve({ id: runId }) });
    expect(res.status).toBe(401);
  });
});
