import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb, schema, writeTx } from '@/server/db';
import { withProviderCapacity } from '@/server/providers/capacity/acquire';
import { CALL_LEASE_MS, RATE_WINDOW_MS, claimProviderCall, waitFor, type CapacityWait } from '@/server/providers/capacity/provider-calls';

const rowsOf = async (providerKey: string) => getDb().select().from(schema.providerCalls).where(eq(schema.providerCalls.providerKey, providerKey));
let keys = 0;
const freshKey = () => `openai http://127.0.0.1:${9000 + keys++}`;

/** A call that holds its place until released, recording when it ran. */
function gatedCall(log: string[], name: string) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  return {
    run: async () => {
      log.push(`start ${name}`);
      started();
      await gate;
      log.push(`end ${name}`);
      return name;
    },
    release,
    running,
  };
}

describe('waitFor: the rule that holds a call back', () => {
  const row = (id: string, state: 'waiting' | 'running' | 'done', queuedAt: number, startedAt: number | null = null) => ({
    id, providerKey: 'k', runId: null, state, queuedAt, startedAt, expiresAt: queuedAt + CALL_LEASE_MS,
  });
  const limits = { maxConcurrent: 2, requestsPerMinute: 3 };

  it('starts a call when nothing is queued before it and the caps have room; at a cap it waits, one under it goes', () => {
    const t = 10_000;
    const mine = row('m', 'waiting', t);
    expect(waitFor(mine, [mine], limits, t)).toBeNull();
    // At the concurrency cap (2 in flight) it waits; one under (1 in flight) it goes.
    const two = [row('a', 'running', 1, 1), row('b', 'running', 2, 2), mine];
    expect(waitFor(mine, two, limits, t)).toEqual({ reason: 'concurrency', inFlight: 2, max: 2 });
    expect(waitFor(mine, two.slice(1), limits, t)).toBeNull();
    // A call queued before it goes first, whatever the room; one queued after it doesn't hold it back.
    expect(waitFor(mine, [row('early', 'waiting', t - 1), mine], limits, t)).toEqual({ reason: 'queue', ahead: 1 });
    expect(waitFor(mine, [row('late', 'waiting', t + 1), mine], limits, t)).toBeNull();
    // The same moment: the id breaks the tie, so two processes agree on the order.
    expect(waitFor(mine, [row('a-first', 'waiting', t), mine], limits, t)).toEqual({ reason: 'queue', ahead: 1 });
    expect(waitFor(mine, [row('z-after', 'waiting', t), mine], limits, t)).toBeNull();
  });

  it('counts the calls started in the last minute against the per-minute cap: at the cap it waits until the oldest is a minute old', () => {
    const t = 100_000;
    const mine = row('m', 'waiting', t);
    const started = [row('a', 'done', 1, t - 50_000), row('b', 'done', 2, t - 20_000), row('c', 'done', 3, t - 10_000)];
    expect(waitFor(mine, [...started, mine], limits, t)).toEqual({ reason: 'rate', perMinute: 3, retryAt: t - 50_000 + RATE_WINDOW_MS });
    // One under the cap, or the oldest start past the minute: it goes.
    expect(waitFor(mine, [...started.slice(1), mine], limits, t)).toBeNull();
    expect(waitFor(mine, [...started, mine], limits, t + 10_001)).toBeNull();
    // No per-minute cap: only concurrency counts.
    expect(waitFor(mine, [...started, mine], { maxConcurrent: 2, requestsPerMinute: null }, t)).toBeNull();
  });
});

describe('withProviderCapacity: calls of one provider, across every run', () => {
  it('never has more calls in flight than the cap; the rest queue in order, are told why, and all finish', async () => {
    const providerKey = freshKey();
    const log: string[] = [];
    const calls = Array.from({ length: 8 }, (_, i) => gatedCall(log, `c${i}`));
    const waits: CapacityWait[][] = calls.map(() => []);
    let inFlight = 0;
    let most = 0;
    const results = calls.map((c, i) =>
      withProviderCapacity({ providerKey, limits: { maxConcurrent: 2, requestsPerMinute: null }, onWait: (w) => waits[i]!.push(w) }, async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        try {
          return await c.run();
        } finally {
          inFlight--;
        }
      }),
    );
    // Two run at once (the cap); each next call starts only once the oldest running one is released.
    await calls[0]!.running;
    await calls[1]!.running;
    for (let i = 2; i < calls.length; i++) {
      calls[i - 2]!.release();
      await calls[i]!.running;
    }
    calls.at(-2)!.release();
    calls.at(-1)!.release();
    expect(await Promise.all(results)).toEqual(calls.map((_, i) => `c${i}`));
    // Must not happen: a third call in flight beside two (a storm of 429s from a provider that allows two).
    expect(most).toBe(2);
    expect(waits.slice(2).every((w) => w.length > 0)).toBe(true);
    expect(waits[0]).toEqual([]);
    expect(log.filter((l) => l.startsWith('start'))).toEqual(calls.map((_, i) => `start c${i}`));
    // Every call is over: none is left counted in flight.
    expect((await rowsOf(providerKey)).filter((r) => r.state !== 'done')).toEqual([]);
  });

  it('a call whose run stops while it waits leaves the queue at once, and the one behind it goes', async () => {
    const providerKey = freshKey();
    const limits = { maxConcurrent: 1, requestsPerMinute: null };
    const log: string[] = [];
    const first = gatedCall(log, 'first');
    const running = withProviderCapacity({ providerKey, limits }, first.run);
    await first.running;
    const stop = new AbortController();
    let told!: () => void;
    const waiting = new Promise<void>((resolve) => (told = resolve));
    const stopped = withProviderCapacity({ providerKey, limits, signal: stop.signal, onWait: () => told() }, async () => 'must not run');
    const third = gatedCall(log, 'third');
    const behind = withProviderCapacity({ providerKey, limits }, third.run);
    await waiting;
    stop.abort(new Error('cancelled by the person'));
    await expect(stopped).rejects.toThrow('cancelled by the person');
    expect((await rowsOf(providerKey)).map((r) => r.state).sort()).toEqual(['running', 'waiting']);
    first.release();
    await third.running;
    third.release();
    expect(await Promise.all([running, behind])).toEqual(['first', 'third']);
    expect(log).not.toContain('start must not run');
  });

  it('a failed call gives its place back', async () => {
    const providerKey = freshKey();
    const limits = { maxConcurrent: 1, requestsPerMinute: null };
    await expect(withProviderCapacity({ providerKey, limits }, async () => { throw new Error('provider said 500'); })).rejects.toThrow('provider said 500');
    expect(await withProviderCapacity({ providerKey, limits }, async () => 'next')).toBe('next');
  });
});

describe('claimProviderCall: the shared count', () => {
  it('a dead process’s calls stop counting once their lease ran out', async () => {
    const providerKey = freshKey();
    const t = Date.now();
    // A call left running by a process that died a lease ago, and one still alive.
    await writeTx((tx) => tx.insert(schema.providerCalls).values([
      { id: 'dead', providerKey, runId: null, state: 'running', queuedAt: t - 2 * CALL_LEASE_MS, startedAt: t - 2 * CALL_LEASE_MS, expiresAt: t - 1 },
      { id: 'alive', providerKey, runId: null, state: 'running', queuedAt: t - 1_000, startedAt: t - 1_000, expiresAt: t + CALL_LEASE_MS },
    ]));
    const limits = { maxConcurrent: 2, requestsPerMinute: null };
    expect(await claimProviderCall({ id: 'next', providerKey, runId: null }, limits, () => t)).toEqual({ granted: true });
    expect((await rowsOf(providerKey)).map((r) => r.id).sort()).toEqual(['alive', 'next']);
    // Now two are alive: one more waits (the cap holds across callers, as across processes).
    expect(await claimProviderCall({ id: 'more', providerKey, runId: null }, limits, () => t)).toEqual({ granted: false, wait: { reason: 'concurrency', inFlight: 2, max: 2 } });
  });

  it('the per-minute cap holds at the cap and lets a call go one window later', async () => {
    const providerKey = freshKey();
    const limits = { maxConcurrent: 10, requestsPerMinute: 2 };
    let t = 1_000_000;
    const clock = () => t;
    for (const id of ['one', 'two']) expect(await claimProviderCall({ id, providerKey, runId: null }, limits, clock)).toEqual({ granted: true });
    expect(await claimProviderCall({ id: 'three', providerKey, runId: null }, limits, clock)).toEqual({ granted: false, wait: { reason: 'rate', perMinute: 2, retryAt: 1_000_000 + RATE_WINDOW_MS } });
    t += RATE_WINDOW_MS - 1;
    expect((await claimProviderCall({ id: 'three', providerKey, runId: null }, limits, clock)).granted).toBe(false);
    t += 1; // retryAt: the first start is a minute old
    expect(await claimProviderCall({ id: 'three', providerKey, runId: null }, limits, clock)).toEqual({ granted: true });
  });
});
