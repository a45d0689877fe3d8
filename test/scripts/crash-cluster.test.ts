import { describe, expect, it } from 'vitest';
import { Cluster } from '@/scripts/crash/cluster';
import { rng } from '@/scripts/crash/workload';

// Which process the crash test sends a request to (scripts/crash/cluster.ts); no process is started here.

function cluster(size: number) {
  const c = new Cluster(rng(7));
  for (let i = 0; i < size; i++) c.add(40_000 + i, { ...process.env }, '/dev/null');
  return c;
}

/** Whether the promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('crash test cluster', () => {
  it('sends requests only to live processes, and to each of them', async () => {
    const c = cluster(3);
    c.nodes[0]!.markUp();
    c.nodes[2]!.markUp();
    const picked = new Set<number>();
    for (let i = 0; i < 50; i++) picked.add((await c.any()).index);
    expect([...picked].sort()).toEqual([0, 2]);
  });

  it('waits while no process is live and wakes when one comes up', async () => {
    const c = cluster(2);
    const request = c.any();
    expect(await settled(request)).toBe(false);
    c.nodes[1]!.markUp();
    expect((await request).index).toBe(1);
  });

  it('waits for at least the number of live processes asked for, not one fewer', async () => {
    const c = cluster(3);
    c.nodes[0]!.markUp();
    const two = c.atLeast(2);
    expect(await settled(two)).toBe(false);
    c.nodes[0]!.markUp();
    expect(await settled(two)).toBe(false);
    c.nodes[2]!.markUp();
    expect(await settled(two)).toBe(true);
  });
});
