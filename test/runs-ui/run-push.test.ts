import { describe, expect, it } from 'vitest';
import { emptyFollow, type RunEventsFollow } from '@/components/runs/event-follow';
import { createCatchUp, needsRead, parseRunPush, type RunPush } from '@/components/runs/run-push';
import { liveConnection } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';

const held = (lastSeq: number, finished = false, caughtUp = true): RunEventsFollow => ({ ...emptyFollow('r1'), lastSeq, finished, caughtUp });
const head = (seq: number, finished = false): RunPush => ({ runId: 'r1', seq, finished });

/** A fake events read: resolves when the test says, and moves the held state to what the "server" has. */
function fakeServer(initial: RunEventsFollow | undefined) {
  let state = initial;
  let server = held(0);
  const pending: Array<() => void> = [];
  let reads = 0;
  return {
    held: () => state,
    set server(s: RunEventsFollow) {
      server = s;
    },
    get reads() {
      return reads;
    },
    read: () =>
      new Promise<void>((resolve) => {
        reads += 1;
        pending.push(() => {
          state = server;
          resolve();
        });
      }),
    /** Answer the read in flight (there is at most one: the catch-up never overlaps reads). */
    async answer() {
      expect(pending.length).toBe(1);
      pending.shift()!();
      await new Promise((r) => setTimeout(r, 0));
    },
    pending: () => pending.length,
  };
}

describe('parseRunPush', () => {
  it("accepts this run's head and refuses anything else from the wire", () => {
    expect(parseRunPush('{"runId":"r1","seq":7,"finished":false}', 'r1')).toEqual(head(7));
    expect(parseRunPush('{"runId":"r1","seq":0,"finished":true}', 'r1')).toEqual(head(0, true));
    for (const raw of ['{"runId":"r2","seq":7,"finished":false}', '{"runId":"r1","seq":-1,"finished":false}', '{"runId":"r1","seq":1.5,"finished":false}', '{"runId":"r1","seq":"7","finished":false}', '{"runId":"r1","seq":7}', 'null', 'not json', '[]']) {
      expect(parseRunPush(raw, 'r1'), raw).toBeNull();
    }
  });

  it('counts a refused or stopped stream as down (polled every second), an opening one as up', () => {
    // The Steps panel's policy (use-run-events.ts): a stream stopped for good polls, so the panel's read shows why.
    const panel = (s: Parameters<typeof liveConnection>[0]) => liveConnection(s, LIVE_FALLBACK_MS.followedRun, 'poll');
    expect(panel({ state: 'open' })).toEqual({ state: 'live' });
    expect(panel({ state: 'connecting' })).toEqual({ state: 'connecting' });
    expect(panel({ state: 'down', failures: 1, retryInMs: 30_000 })).toEqual({ state: 'polling', everySeconds: 1 });
    expect(panel({ state: 'closed', status: 404 })).toEqual({ state: 'polling', everySeconds: 1 });
  });
});

describe('needsRead', () => {
  it('reads when the head is past what is held, or finished when the held is not, or the held had not caught up', () => {
    expect(needsRead(undefined, head(0))).toBe(true);
    expect(needsRead(held(3), head(3))).toBe(false);
    expect(needsRead(held(3), head(4))).toBe(true);
    expect(needsRead(held(3), head(3, true))).toBe(true);
    expect(needsRead(held(3, true), head(3, true))).toBe(false);
    expect(needsRead(held(3, false, false), head(3))).toBe(true);
    // A head behind what is held (an older message, a reconnect's first) asks for nothing.
    expect(needsRead(held(9), head(3))).toBe(false);
  });
});

describe('createCatchUp', () => {
  it('folds a flood of heads heard during a read into one more read, never two reads at once', async () => {
    const api = fakeServer(held(1));
    const catchUp = createCatchUp(api.read, api.held);
    api.server = held(2);
    catchUp.heard(head(2));
    expect(api.reads).toBe(1);
    for (let seq = 3; seq <= 1_000; seq++) catchUp.heard(head(seq));
    // What must not happen: one read per message, or reads overlapping.
    expect(api.reads).toBe(1);
    await api.answer(); // brings 2; the newest head heard says 1,000: one more read
    expect(api.held()?.lastSeq).toBe(2);
    expect(api.reads).toBe(2);
    api.server = held(1_000, true);
    await api.answer();
    expect(api.held()).toEqual(held(1_000, true));
    expect(api.pending()).toBe(0);
    // A repeated head (the stream's first message after a reconnect) reads nothing.
    catchUp.heard(head(1_000, true));
    expect(api.reads).toBe(2);
  });

  it('stops after a read that brought nothing (a failing server is not asked in a loop), and the next head retries', async () => {
    const api = fakeServer(held(1));
    const catchUp = createCatchUp(api.read, api.held);
    api.server = held(1);
    catchUp.heard(head(5));
    await api.answer();
    expect(api.reads).toBe(1);
    expect(api.pending()).toBe(0);
    api.server = held(5);
    catchUp.heard(head(5));
    expect(api.reads).toBe(2);
    await api.answer();
    expect(api.held()?.lastSeq).toBe(5);
  });

  it('with nothing held yet, the first head starts the first read', async () => {
    const api = fakeServer(undefined);
    const catchUp = createCatchUp(api.read, api.held);
    api.server = held(4);
    catchUp.heard(head(4));
    expect(api.reads).toBe(1);
    await api.answer();
    expect(api.held()?.lastSeq).toBe(4);
    expect(api.reads).toBe(1);
  });
});
