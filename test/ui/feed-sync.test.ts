import { afterEach, describe, expect, it } from 'vitest';
import { createFeedSync, type FeedSync } from '@/lib/feed-sync';
import { until } from '../support/wait';

/** A read the test finishes by hand, so "while a read is out" is exact rather than timed. */
function harness(opts: { behind?: () => boolean; retryMs?: number } = {}) {
  const reads: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const sync = createFeedSync({
    read: () => new Promise<void>((resolve, reject) => reads.push({ resolve, reject })),
    behind: opts.behind ?? (() => false),
    retryMs: opts.retryMs ?? 20,
  });
  made.push(sync);
  return { sync, reads };
}
const made: FeedSync[] = [];
afterEach(() => {
  for (const s of made.splice(0)) s.dispose();
});
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('createFeedSync', () => {
  it('reads only when forced or behind what was announced', async () => {
    let behind = false;
    const { sync, reads } = harness({ behind: () => behind });
    sync.request(false);
    expect(reads).toHaveLength(0);
    behind = true;
    sync.request(false);
    expect(reads).toHaveLength(1);
    behind = false;
    reads[0]!.resolve();
    await settle();
    sync.request(true);
    expect(reads).toHaveLength(2);
  });

  it('folds a flood of requests during a read into exactly one read after it (the flood must not cost a read each)', async () => {
    const { sync, reads } = harness();
    sync.request(true);
    for (let i = 0; i < 1_000; i++) sync.request(i % 2 === 0);
    expect(reads).toHaveLength(1);
    reads[0]!.resolve();
    await until(() => reads.length === 2);
    reads[1]!.resolve();
    await settle();
    await settle();
    expect(reads).toHaveLength(2);
  });

  it('reads again right away while still behind after a read (a message that landed mid-read)', async () => {
    let behind = true;
    const { sync, reads } = harness({ behind: () => behind });
    sync.request(false);
    reads[0]!.resolve();
    await until(() => reads.length === 2);
    behind = false;
    reads[1]!.resolve();
    await settle();
    expect(reads).toHaveLength(2);
  });

  it('each failed read is retried once after the delay (not in a tight loop), and nothing runs after dispose', async () => {
    const { sync, reads } = harness({ behind: () => true, retryMs: 30 });
    sync.request(false);
    reads[0]!.reject(new Error('offline'));
    await settle();
    expect(reads).toHaveLength(1);
    await until(() => reads.length === 2, 1_000);
    reads[1]!.reject(new Error('offline'));
    await settle();
    sync.dispose();
    await new Promise((r) => setTimeout(r, 60));
    expect(reads).toHaveLength(2);
    sync.request(true);
    expect(reads).toHaveLength(2);
  });
});
