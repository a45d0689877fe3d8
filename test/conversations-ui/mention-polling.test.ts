import { describe, expect, it } from 'vitest';
import { conversationPollInterval, pendingPollInterval, watchPending } from '@/components/conversations/mention-polling';

describe('watchPending', () => {
  it('keeps its start while the same requests are pending and restarts when the set changes', () => {
    const first = watchPending(null, ['b', 'a'], 1_000);
    expect(first).toEqual({ key: 'a b', since: 1_000 });
    expect(watchPending(first, ['a', 'b'], 9_000)).toBe(first);
    expect(watchPending(first, ['a'], 9_000)).toEqual({ key: 'a', since: 9_000 });
    expect(watchPending(first, [], 9_000)).toBeNull();
  });
});

describe('conversationPollInterval', () => {
  const watch = { key: 'j', since: 0 };

  it('polls every second while a run works, whatever is pending', () => {
    expect(conversationPollInterval({ status: 'running' }, null, 0)).toBe(1_000);
    expect(conversationPollInterval({ status: 'pending' }, watch, 3_600_000)).toBe(1_000);
  });

  it('backs off while mention results are out, and stops when nothing is', () => {
    expect(conversationPollInterval(null, watch, 0)).toBe(2_000);
    expect(conversationPollInterval({ status: 'success' }, watch, 59_999)).toBe(2_000);
    expect(conversationPollInterval({ status: 'success' }, watch, 60_000)).toBe(5_000);
    expect(conversationPollInterval({ status: 'error' }, watch, 600_000)).toBe(30_000);
    expect(conversationPollInterval({ status: 'success' }, null, 0)).toBe(false);
    expect(conversationPollInterval(null, null, 0)).toBe(false);
  });

  it('never polls faster as time passes', () => {
    let last = 0;
    for (let t = 0; t <= 3_600_000; t += 15_000) {
      const next = pendingPollInterval(t);
      expect(next).toBeGreaterThanOrEqual(last);
      last = next;
    }
  });
});
