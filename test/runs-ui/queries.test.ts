import { QueryClient } from '@tanstack/react-query';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emptyFollow, type RunEventsFollow } from '@/components/runs/event-follow';
import { isPermanentRunError, runEventsFollowQuery, runKeys } from '@/components/runs/queries';
import { ApiError } from '@/lib/api-client';
import type { ApiRunEvent } from '@/lib/types/run-events';

const event = (seq: number, type: 'model.call' | 'step.tool' = 'step.tool'): ApiRunEvent =>
  type === 'model.call'
    ? { runId: 'r 1', seq, at: '2026-12-01T07:00:00.000Z', type, model: 'scripted', latencyMs: 1 }
    : { runId: 'r 1', seq, at: '2026-12-01T07:00:00.000Z', type, toolCallId: 'c', tool: 't', result: '', durationMs: 1, status: 'success' };

/** A fake events endpoint: serves `events` after the asked seq, records each URL asked. */
function stubEventsApi(events: ApiRunEvent[], finished: () => boolean) {
  const urls: string[] = [];
  vi.stubGlobal('fetch', async (input: string) => {
    urls.push(input);
    const url = new URL(input, 'http://app.test');
    const after = Number(url.searchParams.get('after'));
    const limit = Number(url.searchParams.get('limit'));
    const rest = events.filter((e) => e.seq > after);
    const page = rest.slice(0, limit);
    return new Response(JSON.stringify({ runId: 'r 1', events: page, nextAfter: page.at(-1)?.seq ?? after, hasMore: rest.length > limit, finished: finished() }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  });
  return urls;
}

afterEach(() => vi.unstubAllGlobals());

describe('run queries', () => {
  it('keys nest under the run, so invalidating a run reaches its events', () => {
    expect(runKeys.detail('r1')).toEqual(['runs', 'r1']);
    expect(runKeys.events('r1').slice(0, 2)).toEqual(runKeys.detail('r1'));
  });

  it('each read continues after the last seq in the cache, and says when figures changed', async () => {
    const events = [event(1), event(2, 'model.call')];
    let finished = false;
    const urls = stubEventsApi(events, () => finished);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const onFigures = vi.fn();
    const options = () => runEventsFollowQuery('r 1', () => client.getQueryData<RunEventsFollow>(runKeys.events('r 1')), onFigures);

    const first = await client.fetchQuery({ ...options(), staleTime: 0 });
    expect(first.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(urls).toEqual(['/api/v1/runs/r%201/events?after=0&limit=200']);
    expect(onFigures).toHaveBeenCalledTimes(1);

    // Nothing new: one small request from seq 2, no figures refresh.
    await client.fetchQuery({ ...options(), staleTime: 0 });
    expect(urls.at(-1)).toBe('/api/v1/runs/r%201/events?after=2&limit=200');
    expect(onFigures).toHaveBeenCalledTimes(1);

    events.push(event(3));
    finished = true;
    const last = await client.fetchQuery({ ...options(), staleTime: 0 });
    expect(last.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(last.finished && last.caughtUp).toBe(true);
    expect(onFigures).toHaveBeenCalledTimes(2);
    expect(client.getQueryData(runKeys.events('r 1'))).toEqual(last);
    expect(last).not.toEqual(emptyFollow('r 1'));
  });

  it('a missing run, another owner’s run or a lost session is permanent; a server error is not', () => {
    expect(isPermanentRunError(new ApiError(404, 'not_found', 'x'))).toBe(true);
    expect(isPermanentRunError(new ApiError(401, 'unauthorized', 'x'))).toBe(true);
    expect(isPermanentRunError(new ApiError(500, 'internal', 'x'))).toBe(false);
    expect(isPermanentRunError(new ApiError(0, 'network_error', 'x'))).toBe(false);
    expect(isPermanentRunError(new Error('x'))).toBe(false);
  });
});
