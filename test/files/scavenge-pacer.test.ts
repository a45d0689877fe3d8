import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { scavengePacer } from '@/server/files/scavenge-pacer';

describe('scavengePacer (upload chunks freed as they are read)', () => {
  it('asks for a collection at each pace of bytes: not one byte before, once at it', () => {
    let collections = 0;
    const pace = scavengePacer(1000, () => collections++);
    pace(600);
    pace(399); // 999 bytes: one short of the pace
    expect(collections).toBe(0);
    pace(1); // 1000: the pace
    expect(collections).toBe(1);
    pace(999);
    expect(collections).toBe(1); // the count starts over after a collection
    pace(5000); // one large chunk past the pace: one collection, not five
    expect(collections).toBe(2);
  });

  it("frees dead chunks' memory when the pace is reached (what the upload relies on)", async () => {
    const chunks = 128;
    const chunkBytes = 64 * 1024;
    const pace = scavengePacer(chunks * chunkBytes);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < chunks; i++) {
      new Uint8Array(chunkBytes).fill(i); // a chunk written and dropped, as ingest does with each body chunk
      pace(chunkBytes);
    }
    // Freed by the collection the last pace asked for (the sweep of array buffers may finish a moment later):
    // what must not happen is 8 MiB of dead chunks still held.
    const until = Date.now() + 2_000;
    while (process.memoryUsage().arrayBuffers - before > chunkBytes * 8 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThanOrEqual(chunkBytes * 8);
  });

  it('never exposes gc to the app: not on globalThis, not in a context made afterwards', () => {
    const before = typeof (globalThis as { gc?: unknown }).gc;
    const pace = scavengePacer(1);
    pace(1);
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe(before);
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
