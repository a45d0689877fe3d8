import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EVENTS_PAGE_LIMIT,
  addsRunFigures,
  appendPage,
  emptyFollow,
  followInterval,
  isFollowDone,
  readForward,
  type RunEventsFollow,
} from '@/components/runs/event-follow';
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { ApiRunEvent, ApiRunEventsPage } from '@/lib/types/run-events';

const RUN = 'run-1';
const at = '2026-12-01T07:00:00.000Z';
const toolEvent = (seq: number, runId = RUN): ApiRunEvent => ({
  runId,
  seq,
  at,
  type: 'step.tool',
  toolCallId: `c${seq}`,
  tool: 'calculator',
  result: String(seq),
  durationMs: 3,
  status: 'success',
});
const page = (events: ApiRunEvent[], over: Partial<ApiRunEventsPage> = {}): ApiRunEventsPage => ({
  runId: RUN,
  events,
  nextAfter: events.at(-1)?.seq ?? 0,
  hasMore: false,
  finished: false,
  ...over,
});
const seqs = (s: RunEventsFollow) => s.events.map((e) => e.seq);

/** A run's server side: events appended over time, paged like GET /api/v1/runs/:id/events. */
function fakeRun() {
  const events: ApiRunEvent[] = [];
  let finished = false;
  const calls: number[] = [];
  return {
    calls,
    add(n: number) {
      for (let i = 0; i < n; i++) events.push(toolEvent(events.length + 1));
    },
    finish() {
      finished = true;
    },
    get all() {
      return events;
    },
    fetchPage: async (after: number, limit = EVENTS_PAGE_LIMIT): Promise<ApiRunEventsPage> => {
      calls.push(after);
      const rest = events.filter((e) => e.seq > after);
      const slice = rest.slice(0, limit);
      return { runId: RUN, events: slice, nextAfter: slice.at(-1)?.seq ?? after, hasMore: rest.length > limit, finished };
    },
  };
}

describe('appendPage', () => {
  it('adds only events past the last seq, in order, each once', () => {
    const first = appendPage(emptyFollow(RUN), page([toolEvent(1), toolEvent(2)]));
    expect(seqs(first)).toEqual([1, 2]);
    expect(first.lastSeq).toBe(2);
    // A retried read from an older `after` overlaps what is held: only 3 and 4 are new.
    const second = appendPage(first, page([toolEvent(2), toolEvent(4), toolEvent(3)]));
    expect(seqs(second)).toEqual([1, 2, 3, 4]);
    expect(second.lastSeq).toBe(4);
  });

  it('ignores another run’s events', () => {
    const s = appendPage(emptyFollow(RUN), page([toolEvent(1, 'other-run'), toolEvent(1)]));
    expect(s.events).toHaveLength(1);
    expect(s.events[0]?.runId).toBe(RUN);
  });

  it('returns the same object when a page changes nothing (no re-render on an idle poll)', () => {
    const s = appendPage(emptyFollow(RUN), page([toolEvent(1)]));
    expect(appendPage(s, page([], { nextAfter: 1 }))).toBe(s);
    expect(appendPage(s, page([toolEvent(1)]))).toBe(s);
  });

  it('is done only when finished and caught up', () => {
    const s = appendPage(emptyFollow(RUN), page([toolEvent(1)], { hasMore: true, finished: true }));
    expect(s.finished).toBe(true);
    expect(s.caughtUp).toBe(false);
    expect(isFollowDone(s)).toBe(false);
    expect(followInterval(s)).toBe(LIVE_FALLBACK_MS.followedRun);
    const done = appendPage(s, page([toolEvent(2)], { finished: true }));
    expect(isFollowDone(done)).toBe(true);
    expect(followInterval(done)).toBe(false);
    expect(followInterval(undefined)).toBe(LIVE_FALLBACK_MS.followedRun);
  });

  it('a stale page that still had more to say does not mark the list caught up', () => {
    const ahead = appendPage(emptyFollow(RUN), page([toolEvent(1), toolEvent(2), toolEvent(3)], { hasMore: true }));
    const stale = appendPage(ahead, page([toolEvent(1)], { nextAfter: 1, hasMore: false, finished: true }));
    expect(stale.caughtUp).toBe(false);
    expect(isFollowDone(stale)).toBe(false);
  });
});

describe('readForward', () => {
  it('starts at after=0 and keeps asking after the last seq while the server has more', async () => {
    const run = fakeRun();
    run.add(EVENTS_PAGE_LIMIT * 2 + 5);
    const s = await readForward(emptyFollow(RUN), run.fetchPage);
    expect(run.calls).toEqual([0, EVENTS_PAGE_LIMIT, EVENTS_PAGE_LIMIT * 2]);
    expect(seqs(s)).toEqual(run.all.map((e) => e.seq));
    expect(s.caughtUp).toBe(true);
    expect(s.finished).toBe(false);
  });

  it('reads at most maxPages pages in one go', async () => {
    const run = fakeRun();
    run.add(EVENTS_PAGE_LIMIT * 3);
    const s = await readForward(emptyFollow(RUN), run.fetchPage, 2);
    expect(run.calls).toEqual([0, EVENTS_PAGE_LIMIT]);
    expect(s.lastSeq).toBe(EVENTS_PAGE_LIMIT * 2);
    expect(s.caughtUp).toBe(false);
    const rest = await readForward(s, run.fetchPage, 2);
    expect(rest.lastSeq).toBe(EVENTS_PAGE_LIMIT * 3);
    expect(rest.caughtUp).toBe(true);
  });

  it('stops on a page that brings nothing new even if it claims more (no busy loop)', async () => {
    let calls = 0;
    const s = await readForward(emptyFollow(RUN), async () => {
      calls++;
      return page([], { hasMore: true });
    });
    expect(calls).toBe(1);
    expect(s.events).toEqual([]);
  });

  it('following a growing run ends with exactly its events: no duplicates, no gaps', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ add: fc.nat({ max: 450 }), pages: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 8 }),
        async (ticks) => {
          const run = fakeRun();
          let s = emptyFollow(RUN);
          for (const tick of ticks) {
            run.add(tick.add);
            s = await readForward(s, run.fetchPage, tick.pages);
            expect(seqs(s)).toEqual(run.all.slice(0, s.events.length).map((e) => e.seq));
          }
          run.finish();
          while (!isFollowDone(s)) s = await readForward(s, run.fetchPage, 1);
          expect(seqs(s)).toEqual(run.all.map((e) => e.seq));
          expect(new Set(seqs(s)).size).toBe(run.all.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('addsRunFigures', () => {
  const modelCall = (seq: number): ApiRunEvent => ({ runId: RUN, seq, at, type: 'model.call', model: 'scripted', latencyMs: 1 });
  it('is true when a read brings a model call or the run’s end, false for tool steps alone', () => {
    const base = appendPage(emptyFollow(RUN), page([toolEvent(1)]));
    expect(addsRunFigures(base, appendPage(base, page([toolEvent(2)])))).toBe(false);
    expect(addsRunFigures(base, appendPage(base, page([modelCall(2)])))).toBe(true);
    expect(addsRunFigures(base, appendPage(base, page([], { nextAfter: 1, finished: true })))).toBe(true);
    expect(addsRunFigures(base, base)).toBe(false);
  });
});
