import { describe, expect, it } from 'vitest';
import {
  FALLBACK_POLL_MS,
  fallbackInterval,
  parsePush,
  pushChangesState,
  streamStatusLabel,
  streamStatusOf,
} from '@/components/conversations/live-updates';

describe('conversation live updates', () => {
  it('polls only while the stream is down, and says so with the figure', async () => {
    expect(fallbackInterval('live')).toBe(false);
    expect(fallbackInterval('connecting')).toBe(false);
    expect(fallbackInterval('down')).toBe(FALLBACK_POLL_MS);
    expect(streamStatusLabel('live')).toBe('Live');
    expect(streamStatusLabel('down')).toBe(`Reconnecting — checking every ${FALLBACK_POLL_MS / 1000} s`);
  });

  it('maps the stream reader: open is live; down and stopped for good both fall back to polling', async () => {
    expect(streamStatusOf({ state: 'open' })).toBe('live');
    expect(streamStatusOf({ state: 'connecting' })).toBe('connecting');
    expect(streamStatusOf({ state: 'down', failures: 1, retryInMs: 1_000 })).toBe('down');
    expect(streamStatusOf({ state: 'closed', status: 404 })).toBe('down');
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
