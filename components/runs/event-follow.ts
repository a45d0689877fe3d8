/**
 * Following a run's events forward by `seq`: the accumulated list, how a fetched page joins it, and when to ask
 * again. Pure, so the paging rules are tested without a browser; the hook (use-run-events.ts) only schedules.
 */
import { LIVE_FALLBACK_MS } from '@/lib/query/live-intervals';
import type { ApiRunEvent, ApiRunEventsPage } from '@/lib/types/run-events';

export type RunEventsFollow = {
  runId: string;
  /** Every event seen so far, by ascending seq, each once. */
  events: ApiRunEvent[];
  /** The highest seq held (0 before the first): the next page is asked `after` it. */
  lastSeq: number;
  /** The server said the run has finished: nothing will follow its last event. */
  finished: boolean;
  /** The last page said no more events exist right now. */
  caughtUp: boolean;
};

/** Pages read in one go while the server says there are more (a long finished run: 10 × 200 events per tick). */
export const MAX_PAGES_PER_READ = 10;
/** The page size asked for (the API's maximum, LIMITS.runEvents.page.max). */
export const EVENTS_PAGE_LIMIT = 200;

export const emptyFollow = (runId: string): RunEventsFollow => ({ runId, events: [], lastSeq: 0, finished: false, caughtUp: false });

/** Finished and nothing left to read: stop asking. */
export const isFollowDone = (s: RunEventsFollow | undefined): boolean => s !== undefined && s.finished && s.caughtUp;

/**
 * A page joins the list: only events past the last one held, in seq order, each seq once. A page read from an
 * older `after` (a retry that raced a newer read) therefore adds only what is new; nothing is duplicated or
 * reordered. Returns the same object when the page adds nothing and changes no flag (so nothing re-renders).
 */
export function appendPage(state: RunEventsFollow, page: ApiRunEventsPage): RunEventsFollow {
  const fresh: ApiRunEvent[] = [];
  let last = state.lastSeq;
  for (const event of [...page.events].sort((a, b) => a.seq - b.seq)) {
    if (event.runId !== state.runId || event.seq <= last) continue;
    fresh.push(event);
    last = event.seq;
  }
  // A page from an older `after` that still had more to say can't mean this list has caught up.
  const caughtUp = !page.hasMore && page.nextAfter >= state.lastSeq;
  const finished = state.finished || page.finished;
  if (fresh.length === 0 && caughtUp === state.caughtUp && finished === state.finished) return state;
  return { ...state, events: fresh.length ? [...state.events, ...fresh] : state.events, lastSeq: last, finished, caughtUp };
}

/** TanStack refetchInterval while the run's stream is down: about once a second until it has finished and every event was read. */
export function followInterval(state: RunEventsFollow | undefined, ms: number = LIVE_FALLBACK_MS.followedRun): number | false {
  return isFollowDone(state) ? false : ms;
}

/**
 * One read: pages from the last seq held until the server has no more right now (bounded by maxPages, so a huge
 * run is read over several ticks rather than in one unbounded loop).
 */
export async function readForward(
  previous: RunEventsFollow,
  fetchPage: (after: number) => Promise<ApiRunEventsPage>,
  maxPages = MAX_PAGES_PER_READ,
): Promise<RunEventsFollow> {
  let state = previous;
  for (let i = 0; i < maxPages; i++) {
    const page = await fetchPage(state.lastSeq);
    const next = appendPage(state, page);
    const progressed = next.lastSeq > state.lastSeq;
    state = next;
    if (!page.hasMore || !progressed) break;
  }
  return state;
}

/** Whether the events a read added change the run's figures (a model call) or its outcome. */
export function addsRunFigures(before: RunEventsFollow, after: RunEventsFollow): boolean {
  if (after.finished !== before.finished) return true;
  for (let i = before.events.length; i < after.events.length; i++) {
    const type = after.events[i]?.type;
    if (type === 'model.call' || type === 'run.finished') return true;
  }
  return false;
}
