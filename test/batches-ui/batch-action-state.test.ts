import { describe, expect, it } from 'vitest';
import { batchActionState } from '@/components/batches/batch-action-state';
import type { BatchView } from '@/lib/types/batch';

const counts = (c: Partial<BatchView['counts']>): BatchView['counts'] => ({ queued: 0, running: 0, waiting: 0, done: 0, failed: 0, cancelled: 0, ...c });
const state = (status: BatchView['status'], c: Partial<BatchView['counts']>) => batchActionState({ status, counts: counts(c) });

describe('a batch’s actions', () => {
  it('retry is for failed items only; with items waiting for an answer it says they stay as they are', () => {
    expect(state('running', { failed: 2, waiting: 1 })).toMatchObject({
      canRetry: true,
      retryNote: 'Retry queues the 2 items that failed; the 1 item waiting for your answer stays as it is: answer it to go on.',
    });
    expect(state('running', { failed: 1, waiting: 3 }).retryNote).toBe('Retry queues the 1 item that failed; the 3 items waiting for your answer stay as they are: answer them to go on.');
    expect(state('running', { failed: 1 })).toMatchObject({ canRetry: true, retryNote: null });
    // Nothing failed: no retry, and nothing to say about the waiting ones here (the progress says they wait).
    expect(state('running', { waiting: 2 })).toMatchObject({ canRetry: false, retryNote: null });
    expect(state('completed', { failed: 1, done: 3 }).canRetry).toBe(true);
    expect(state('cancelled', { failed: 1 }).canRetry).toBe(false);
  });

  it('a batch whose only unfinished items wait for an answer can be cancelled, and the dialog counts them', () => {
    expect(state('running', { waiting: 2, done: 1 })).toMatchObject({
      canCancel: true,
      unfinished: 2,
      cancelDescription: '2 unfinished items end now (2 waiting for your answer), and running ones are stopped. Finished items and their results stay.',
    });
    expect(state('running', { queued: 1 })).toMatchObject({
      canCancel: true,
      cancelDescription: '1 unfinished item ends now, and running ones are stopped. Finished items and their results stay.',
    });
    expect(state('running', { done: 4, failed: 1 }).canCancel).toBe(false);
    expect(state('completed', { done: 1 }).canCancel).toBe(false);
  });

  it('a cancelled batch offers to re-run its cancelled and failed items, counting both; no other batch does', () => {
    expect(state('cancelled', { cancelled: 3, failed: 1, done: 2 })).toMatchObject({ rerun: 4, rerunLabel: 'Re-run 4 items', canRetry: false, canCancel: false });
    expect(state('cancelled', { cancelled: 1 })).toMatchObject({ rerun: 1, rerunLabel: 'Re-run 1 item' });
    // Cancelled after everything had finished: nothing to re-run.
    expect(state('cancelled', { done: 3 })).toMatchObject({ rerun: 0, rerunLabel: null });
    expect(state('running', { failed: 2 })).toMatchObject({ rerun: 0, rerunLabel: null });
    expect(state('completed', { failed: 2 })).toMatchObject({ rerun: 0, rerunLabel: null });
  });
});
