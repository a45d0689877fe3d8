import { describe, expect, it } from 'vitest';
import { pushedBatch } from '@/components/batches/batch-push';

const batch = { id: 'b1', status: 'running', counts: { queued: 1, running: 1, done: 1, failed: 0, cancelled: 0 } };

describe('a pushed batch message', () => {
  it('is taken as the batch when it carries this batch’s status and counts', () => {
    expect(pushedBatch(JSON.stringify({ batch }), 'b1')).toEqual(batch);
  });

  it('is not taken (the view re-reads instead) for another batch, a missing part, or text that is not JSON', () => {
    expect(pushedBatch(JSON.stringify({ batch }), 'b2')).toBeNull();
    expect(pushedBatch(JSON.stringify({ batch: { id: 'b1', status: 'running' } }), 'b1')).toBeNull();
    expect(pushedBatch(JSON.stringify({ batch: { ...batch, status: 3 } }), 'b1')).toBeNull();
    expect(pushedBatch('null', 'b1')).toBeNull();
    expect(pushedBatch('{"batch":', 'b1')).toBeNull();
  });
});
