/**
 * The feed's cached pages and how push changes are merged into them. Pure functions, so the ordering, dedupe and
 * revision rules are tested without a browser (test/teams-ui/activity-cache.test.ts).
 */
import type { InfiniteData } from '@tanstack/react-query';
import type { ApiActivityChanges, ApiJob } from '@/lib/types/team';

/** Jobs per page of history: enough to fill the feed's viewport, small enough to read at every open. */
export const ACTIVITY_PAGE_SIZE = 30;

/** One read of the feed: jobs newest first (by seq), at the team revision it was read. */
export type ActivityPage = {
  revision: number;
  totalJobs: number;
  jobs: ApiJob[];
  /**
   * Where older history starts, fixed when the page was read (null: none older). Kept apart from `jobs` because a
   * filtered feed drops jobs that leave its filter, and a page made shorter that way still has history behind it.
   */
  olderBefore?: number | null;
};
/** null = the newest page; a number = jobs with a lower seq (scroll-back). */
export type ActivityPageParam = number | null;
export type ActivityFeed = InfiniteData<ActivityPage, ActivityPageParam>;

const minSeq = (jobs: readonly ApiJob[]) => jobs.reduce((m, j) => Math.min(m, j.seq), Number.POSITIVE_INFINITY);
const bySeqDesc = (a: ApiJob, b: ApiJob) => b.seq - a.seq;

/** Older history exists while the last page came back full: the next page is the jobs before its oldest. */
export function nextPageParam(last: ActivityPage): ActivityPageParam | undefined {
  if (last.olderBefore !== undefined) return last.olderBefore ?? undefined;
  return last.jobs.length < ACTIVITY_PAGE_SIZE ? undefined : minSeq(last.jobs);
}

/** A page as read: its history cursor fixed from what the server answered. */
export const readPage = (page: Omit<ActivityPage, 'olderBefore'>): ActivityPage => ({
  ...page,
  olderBefore: page.jobs.length < ACTIVITY_PAGE_SIZE ? null : minSeq(page.jobs),
});

/** The revision the feed is at (its newest page's). */
export const feedRevision = (feed: ActivityFeed | undefined): number | undefined => feed?.pages[0]?.revision;

export type MergeResult =
  /** Nothing to apply: the answer is not newer than the feed (returns the same object, so nothing re-renders). */
  | { kind: 'unchanged'; feed: ActivityFeed }
  | { kind: 'merged'; feed: ActivityFeed; changed: ApiJob[] }
  /** The server could not list everything that changed: re-read the loaded pages. */
  | { kind: 'reload' };

/**
 * Patch the changed jobs into the pages. A known job is replaced where it is; a new job (seq above everything
 * loaded below it) goes into the page whose range holds it, in seq order; a job older than the loaded history is
 * left for scroll-back to bring. The revision only ever rises: an answer at or below the feed's is ignored, so two
 * overlapping reads can land in any order.
 */
export function mergeChanges(feed: ActivityFeed, changes: ApiActivityChanges): MergeResult {
  const head = feed.pages[0];
  if (!head) return { kind: 'reload' };
  if (changes.truncated) return { kind: 'reload' };
  if (changes.revision <= head.revision) return { kind: 'unchanged', feed };
  // An answer that starts after the feed's revision would skip changes in between.
  if (changes.since > head.revision) return { kind: 'reload' };

  const incoming = new Map<string, ApiJob>();
  for (const job of changes.changed) if (!incoming.has(job.id)) incoming.set(job.id, job);

  // A request shows its receipt's status, which the server derives when reading: a receipt that moved on its own
  // is listed, the request that embeds it is not (its own row did not change), so it is patched here.
  const receiptStatus = new Map([...incoming.values()].filter((j) => j.kind === 'receipt').map((j) => [j.id, j.status]));
  const withReceipt = (j: ApiJob): ApiJob => {
    const status = j.receipt ? receiptStatus.get(j.receipt.id) : undefined;
    return status && status !== j.receipt!.status ? { ...j, receipt: { id: j.receipt!.id, status } } : j;
  };
  // A filtered feed drops the changed jobs that no longer match its filter (the server names them).
  const leaving = new Set(changes.unmatched ?? []);
  const pages = feed.pages.map((p) => ({ ...p, jobs: p.jobs.filter((j) => !leaving.has(j.id)).map((j) => withReceipt(incoming.get(j.id) ?? j)) }));
  const known = new Set(feed.pages.flatMap((p) => p.jobs.map((j) => j.id)));
  const moreHistory = nextPageParam(feed.pages[feed.pages.length - 1]!) !== undefined;
  let added = 0;
  for (const job of incoming.values()) {
    if (known.has(job.id)) continue;
    // The page holding this seq: the first (newest) whose oldest job is below it.
    let index = pages.findIndex((p) => p.jobs.length > 0 && job.seq > minSeq(p.jobs));
    if (index === -1) {
      if (moreHistory) continue;
      index = pages.length - 1;
    }
    pages[index]!.jobs.push(job);
    added += 1;
  }
  for (const p of pages) p.jobs.sort(bySeqDesc);
  pages[0] = { ...pages[0]!, revision: changes.revision, totalJobs: changes.totalJobs ?? pages[0]!.totalJobs + added };
  return { kind: 'merged', feed: { ...feed, pages }, changed: [...incoming.values()] };
}

/** The feed as the reader sees it: oldest at the top, each job once (a job seen twice keeps its newest page's copy). */
export function feedJobs(feed: ActivityFeed | undefined): ApiJob[] {
  if (!feed) return [];
  const seen = new Map<string, ApiJob>();
  for (const page of feed.pages) for (const job of page.jobs) if (!seen.has(job.id)) seen.set(job.id, job);
  return [...seen.values()].sort((a, b) => a.seq - b.seq);
}
