import crypto from 'node:crypto';
import { requestWithSignal } from './request-with-signal';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as streamRoute } from '@/app/api/v1/runs/[id]/events/stream/route';
import { GET as eventsRoute } from '@/app/api/v1/runs/[id]/events/route';
import { LIMITS } from '@/lib/limits';
import type { ApiRunEventsPage } from '@/lib/types/run-events';
import { start } from '@/server/agents/runs';
import { writeRunEvent } from '@/server/agents/observe/record';
import { conversationListenerCount } from '@/server/push/bus';
import { runEventStream, type RunPush } from '@/server/push/run-stream';
import { closeAllStreams, openStreamCount } from '@/server/push/streams';
import { conversationWith, finished, send, until } from '../agents/helpers';
import { GATE_GROUP, registerGateTool } from '../support/gate-tool';
import { makeUser } from '../support/users';
import { sseReader, type SseMessage } from './sse';

const BASE = 'http://localhost/api/v1';
type TestUser = Awaited<ReturnType<typeof makeUser>>;
const ctx = (id: string) => ({ params: Promise.resolve({ id }) });
let gate: ReturnType<typeof registerGateTool>;

function open(user: TestUser, runId: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const res = streamRoute(requestWithSignal(`${BASE}/runs/${runId}/events/stream`, { ...user.auth, ...headers }, abort.signal), ctx(runId));
  return { abort, res };
}
const page = async (user: TestUser, runId: string, after: number) =>
  (await (await eventsRoute(new Request(`${BASE}/runs/${runId}/events?after=${after}`, { headers: user.auth }), ctx(runId))).json()) as ApiRunEventsPage;
const data = (m: SseMessage | null) => m?.data as RunPush | undefined;

/** A run held inside its `hold` tool call: its first model step is stored, the rest waits for gate.open(). */
async function heldRun(user: TestUser) {
  const { conversation } = await conversationWith(user.id, { toolGroups: [GATE_GROUP] });
  gate.close();
  const { run } = await start(user.id, conversation.id, { text: '/call hold {}\n/reply after the hold' }, { idempotencyKey: crypto.randomUUID() });
  await until(() => gate.entered > 0);
  gate.entered = 0;
  return { run, conversation };
}

beforeAll(() => {
  gate = registerGateTool();
});
afterEach(() => {
  gate.open();
  closeAllStreams();
});

describe('run event stream', () => {
  it("says the run's head first, then each commit of its events with the seq as id, and finished at the end", async () => {
    const alice = await makeUser('alice');
    const { run } = await heldRun(alice);
    const r = await open(alice, run.id).res;
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/event-stream');
    const stream = sseReader(r);
    // run.started, model.call, step.assistant are stored before the tool holds.
    expect(await stream.next()).toEqual({ id: '3', event: 'run', data: { runId: run.id, seq: 3, finished: false } });

    gate.open();
    const last = await stream.until((m) => data(m)?.finished === true);
    expect(Number(last.id)).toBe(data(last)!.seq);
    // What the messages pointed at is exactly what the events read after the first head brings.
    const rest = await page(alice, run.id, 3);
    expect(rest.events.map((e) => e.type)).toEqual(['step.tool', 'model.call', 'step.assistant', 'run.finished']);
    expect(data(last)!.seq).toBe(rest.nextAfter);
    expect(rest.finished).toBe(true);
  });

  it('resumes with Last-Event-ID: the first message after a disconnect says the seq now, and nothing in between is lost', async () => {
    const alice = await makeUser('alice');
    const { run } = await heldRun(alice);
    const first = open(alice, run.id);
    const lastId = (await sseReader(await first.res).next())!.id!;
    first.abort.abort();
    // While no stream is open the run goes on to its end.
    gate.open();
    await finished(run.id);
    const resumed = sseReader(await open(alice, run.id, { 'last-event-id': lastId }).res);
    const head = data(await resumed.next())!;
    expect(head.finished).toBe(true);
    expect(head.seq).toBeGreaterThan(Number(lastId));
    const missed = await page(alice, run.id, Number(lastId));
    expect(missed.events.map((e) => e.seq)).toEqual(Array.from({ length: head.seq - Number(lastId) }, (_, i) => Number(lastId) + 1 + i));
  });

  it('answers 404 to another owner, exactly like a missing run, and opens no stream (no listener, no slot)', async () => {
    const alice = await makeUser('alice');
    const bob = await makeUser('bob');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, 'hello');
    const listeners = conversationListenerCount();
    const foreign = await open(bob, run.id).res;
    const missing = await open(bob, crypto.randomUUID()).res;
    expect([foreign.status, missing.status]).toEqual([404, 404]);
    expect(await foreign.json()).toEqual(await missing.json());
    expect(conversationListenerCount()).toBe(listeners);
    expect(openStreamCount(bob.id)).toBe(0);
    // Bob's stream on his own run hears nothing of alice's runs.
    const bobRun = await send(bob.id, (await conversationWith(bob.id)).conversation.id, 'mine');
    const bobs = open(bob, bobRun.id);
    const bobStream = sseReader(await bobs.res);
    expect(data(await bobStream.next())).toMatchObject({ runId: bobRun.id, finished: true });
    await send(alice.id, conversation.id, 'again');
    bobs.abort.abort();
    expect(await bobStream.next()).toBeNull();
  });

  it('without a session → 401, and no stream', async () => {
    const res = await streamRoute(new Request(`${BASE}/runs/x/events/stream`), ctx('x'));
    expect(res.status).toBe(401);
  });

  it(`shares the per-account cap of ${LIMITS.push.maxStreamsPerAccount} open streams; one more is 429 with Retry-After`, async () => {
    const alice = await makeUser('alice');
    const run = await send(alice.id, (await conversationWith(alice.id)).conversation.id, 'hello');
    const opened = [];
    for (let i = 0; i < LIMITS.push.maxStreamsPerAccount; i++) opened.push(open(alice, run.id));
    expect((await Promise.all(opened.map(async (o) => o.res))).map((r) => r.status)).toEqual(opened.map(() => 200));
    const refused = await open(alice, run.id).res;
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(LIMITS.push.retryAfterSeconds));
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_streams');
    opened[0]!.abort.abort();
    expect(openStreamCount(alice.id)).toBe(LIMITS.push.maxStreamsPerAccount - 1);
    expect((await open(alice, run.id).res).status).toBe(200);
  });

  it('leaves no listener and no slot behind when the client goes away', async () => {
    const alice = await makeUser('alice');
    const run = await send(alice.id, (await conversationWith(alice.id)).conversation.id, 'hello');
    const listeners = conversationListenerCount();
    const { abort, res } = open(alice, run.id);
    const stream = sseReader(await res);
    await stream.next();
    expect(conversationListenerCount()).toBe(listeners + 1);
    abort.abort();
    expect(await stream.next()).toBeNull();
    expect(conversationListenerCount()).toBe(listeners);
    expect(openStreamCount(alice.id)).toBe(0);
  });

  it('coalesces a flood of 1,000 event writes an idle reader has not read into one message at the latest seq', async () => {
    const alice = await makeUser('alice');
    const { conversation } = await conversationWith(alice.id);
    const run = await send(alice.id, conversation.id, 'hello');
    const abort = new AbortController();
    let reads = 0;
    const stream = sseReader(
      await runEventStream({
        accountId: alice.id,
        runId: run.id,
        conversationId: conversation.id,
        readHead: () => ({ seq: ++reads, finished: false }),
        signal: abort.signal,
        signedIn: async () => true,
        heartbeatMs: 60_000,
      }),
    );
    expect(data(await stream.next())).toEqual({ runId: run.id, seq: 1, finished: false });
    // 1,000 writes in separate ticks: each is its own announcement; none is read by the client meanwhile.
    for (let i = 0; i < 1_000; i++) {
      await writeRunEvent(run.id, conversation.id, { type: 'interrupt', interrupt: { i } });
      await Promise.resolve();
      await Promise.resolve();
    }
    // Heads are read asynchronously, one at a time: let the read the last announcement began finish (no timer: the
    // queued promise jobs run before the next event-loop turn).
    await new Promise((resolve) => setImmediate(resolve));
    const next = await stream.next();
    // What must not happen: a backlog of 1,000 messages. One message waits, at the latest head.
    expect(next).toEqual({ id: String(reads), event: 'run', data: { runId: run.id, seq: reads, finished: false } });
    expect(reads).toBeGreaterThan(100);
    // Another run of the same conversation is not this run's news: no read, no message.
    const before = reads;
    await writeRunEvent(crypto.randomUUID(), conversation.id, { type: 'interrupt', interrupt: 'other' });
    await Promise.resolve();
    await Promise.resolve();
    expect(reads).toBe(before);
    await writeRunEvent(run.id, conversation.id, { type: 'interrupt', interrupt: 'mine' });
    expect(data(await stream.next())?.seq).toBe(before + 1);
    abort.abort();
    expect(await stream.next()).toBeNull();
  });
});
