import { describe, expect, it } from 'vitest';
import { liveLabel } from '@/components/ui/live-status';
import { parsePush, pushChangesState } from '@/components/conversations/live-updates';
import { liveConnection, livePoll } from '@/lib/query/live-connection';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { PushStreamStatus } from '@/lib/push-stream';

// As use-conversation-events.ts follows the conversation's stream: its cadence, and a stream stopped for good polls.
const FALLBACK_POLL_MS = LIVE_FALLBACK_MS.openThread;
const streamStatusOf = (s: PushStreamStatus) => liveConnection(s, FALLBACK_POLL_MS, 'poll');
const fallbackInterval = (s: PushStreamStatus) => livePoll(streamStatusOf(s), FALLBACK_POLL_MS).refetchInterval;

describe('conversation live updates', () => {
  it('polls only while the stream is down, and says so with the figure', async () => {
    expect(fallbackInterval({ state: 'open' })).toBe(false);
    expect(fallbackInterval({ state: 'connecting' })).toBe(false);
    expect(fallbackInterval({ state: 'down', failures: 1, retryInMs: 1_000 })).toBe(5_000);
    expect(liveLabel(streamStatusOf({ state: 'open' }))).toBe('Live');
    expect(liveLabel(streamStatusOf({ state: 'down', failures: 1, retryInMs: 1_000 }))).toBe('Reconnecting — checking every 5 s');
  });

  it('maps the stream reader: open is live; down and stopped for good both fall back to polling', async () => {
    expect(streamStatusOf({ state: 'open' })).toEqual({ state: 'live' });
    expect(streamStatusOf({ state: 'connecting' })).toEqual({ state: 'connecting' });
    expect(streamStatusOf({ state: 'down', failures: 1, retryInMs: 1_000 })).toEqual({ state: 'polling', everySeconds: 5 });
    expect(streamStatusOf({ state: 'closed', status: 404 })).toEqual({ state: 'polling', everySeconds: 5 });
    expect(fallbackInterval({ state: 'closed', status: 401 })).toBe(5_000);
  });

  it('reads a message field by field and refuses anything else', async () => {
    expect(parsePush('{"conversationId":"c1","runIds":["r1"]}')).toEqual({ conversationId: 'c1', runIds: ['r1'] });
    expect(parsePush('{"conversationId":"c1","runIds":null}')).toEqual({ conversationId: 'c1', runIds: null });
    for (const bad of ['', 'not json', 'null', '[]', '{"runIds":[]}', '{"conversationId":1,"runIds":[]}', '{"conversationId":"c","runIds":[1]}', '{"conversationId":"c","runIds":"r"}']) {
      expect(parsePush(bad), bad).toBeNull();
    }
  });

  it('"you missed nothing" ([] on connecting) changes nothing; runs or a re-read do', async () => {
    expect(pushChangesState({ conversationId: 'c', runIds: [] })).toBe(false);
    expect(pushChangesState({ conversationId: 'c', runIds: ['r'] })).toBe(true);
    expect(pushChangesState({ conversationId: 'c', runIds: null })).toBe(true);
  });
});
