import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { afterEach, describe, expect, it } from 'vitest';
import { refreshOnPush } from '@/lib/query/refresh-on-push';

/** A query whose reads the test answers one by one; it counts reads started and reads cancelled. */
function harness() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity } } });
  const pending: Array<(value: number) => void> = [];
  const stats = { started: 0, aborted: 0 };
  const key = ['thing', 't1'];
  const observer = new QueryObserver(client, {
    queryKey: key,
    queryFn: ({ signal }) => {
      stats.started += 1;
      const n = stats.started;
      signal.addEventListener('abort', () => (stats.aborted += 1));
      return new Promise<number>((resolve) => pending.push(() => resolve(n)));
    },
  });
  // Subscribed = on screen: an active query, which is what refetches.
  const unsubscribe = observer.subscribe(() => {});
  /** Answer the oldest read on the wire, then let the loop take its next step. */
  const answer = async () => {
    await expect.poll(() => pending.length, { timeout: 1_000 }).toBeGreaterThan(0);
    pending.shift()!(0);
    await new Promise((r) => setTimeout(r, 0));
  };
  const data = () => client.getQueryData<number>(key);
  return { client, key, stats, answer, data, pending, done: () => (unsubscribe(), client.clear()) };
}

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

describe('refreshOnPush', () => {
  it('a flood of messages while a read is on the wire costs that read and one more, never a cancel', async () => {
    const h = harness();
    cleanup = h.done;
    await h.answer(); // the first read (mount)
    expect(h.stats.started).toBe(1);

    refreshOnPush(h.client, { queryKey: h.key, exact: true });
    expect(h.stats.started).toBe(2);
    // What must not happen: a read per message, or the read on the wire cancelled and started again.
    for (let i = 0; i < 50; i++) refreshOnPush(h.client, { queryKey: h.key, exact: true });
    expect(h.stats.started).toBe(2);
    await h.answer(); // read 2 lands; the messages that came meanwhile fold into one more read
    await expect.poll(() => h.stats.started, { timeout: 1_000 }).toBe(3);
    await h.answer();
    expect(h.stats.aborted).toBe(0);
    expect(h.pending).toHaveLength(0);
    expect(h.stats.started).toBe(3);
  });

  it('a message during a read that predates it gets a read that starts after it', async () => {
    const h = harness();
    cleanup = h.done;
    // The mount's read is on the wire when the message comes: its answer may not hold the change.
    refreshOnPush(h.client, { queryKey: h.key, exact: true });
    expect(h.stats.started).toBe(1);
    await h.answer();
    await expect.poll(() => h.stats.started, { timeout: 1_000 }).toBe(2);
    await h.answer();
    expect(h.data()).toBe(2);
    expect(h.stats.aborted).toBe(0);
  });

  it('one message with nothing on the wire is one read; a later message is another', async () => {
    const h = harness();
    cleanup = h.done;
    await h.answer();
    refreshOnPush(h.client, { queryKey: h.key, exact: true });
    await h.answer();
    expect(h.stats.started).toBe(2);
    refreshOnPush(h.client, { queryKey: h.key, exact: true });
    await h.answer();
    expect(h.stats.started).toBe(3);
    expect(h.data()).toBe(3);
  });

  it('a query not on screen is only marked stale; a prefix reaches every query under it', async () => {
    const client = new QueryClient();
    cleanup = () => client.clear();
    client.setQueryData(['runs', 'r1'], 1);
    client.setQueryData(['runs', 'r1', 'children'], 2);
    client.setQueryData(['runs', 'r2'], 3);
    refreshOnPush(client, { queryKey: ['runs', 'r1'] });
    await expect
      .poll(() =>
        client
          .getQueryCache()
          .getAll()
          .filter((q) => q.state.isInvalidated)
          .map((q) => q.queryKey),
      )
      .toEqual([['runs', 'r1'], ['runs', 'r1', 'children']]);
    expect(client.isFetching()).toBe(0);
  });
});
