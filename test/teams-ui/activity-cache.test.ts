import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_PAGE_SIZE,
  feedJobs,
  feedRevision,
  mergeChanges,
  nextPageParam,
  type ActivityFeed,
  type ActivityPage,
} from '@/components/teams/activity-cache';
import type { ApiActivityChanges, ApiJob, JobStatus } from '@/lib/types/team';

const job = (seq: number, status: JobStatus = 'queued', result: string | null = null): ApiJob => ({
  id: `j${seq}`,
  seq,
  kind: 'request',
  memberId: 'm1',
  conversationId: 'c1',
  status,
  text: `task ${seq}`,
  result,
  createdAt: '2026-12-01T10:00:00.000Z',
  completedAt: null,
  sourceMemberId: null,
  sourceConversationId: null,
  parentId: null,
  rootId: `j${seq}`,
  receipt: null,
});

const page = (revision: number, totalJobs: number, seqs: number[]): ActivityPage => ({
  revision,
  totalJobs,
  jobs: seqs.map((s) => job(s)),
});
const feedOf = (...pages: ActivityPage[]): ActivityFeed => ({
  pages,
  pageParams: pages.map((p, i) => (i === 0 ? null : Math.min(...pages[i - 1]!.jobs.map((j) => j.seq)))),
});
const changes = (since: number, revision: number, changed: ApiJob[], truncated = false): ApiActivityChanges => ({
  since,
  revision,
  changed,
  truncated,
});
const seqsOf = (feed: ActivityFeed) => feedJobs(feed).map((j) => j.seq);

describe('mergeChanges', () => {
  it('replaces a changed job where it is and moves the revision to the answer’s', () => {
    const feed = feedOf(page(5, 3, [3, 2, 1]));
    const result = mergeChanges(feed, changes(5, 6, [job(2, 'completed', 'done')]));
    expect(result.kind).toBe('merged');
    if (result.kind !== 'merged') return;
    expect(feedRevision(result.feed)).toBe(6);
    expect(result.feed.pages[0]!.jobs.map((j) => [j.seq, j.status])).toEqual([
      [3, 'queued'],
      [2, 'completed'],
      [1, 'queued'],
    ]);
    expect(result.feed.pages[0]!.totalJobs).toBe(3);
    // The old cache object is not mutated (TanStack compares by reference).
    expect(feed.pages[0]!.jobs[1]!.status).toBe('queued');
  });

  it('adds new jobs in seq order and counts them once, even when the answer lists one twice', () => {
    const feed = feedOf(page(5, 2, [2, 1]));
    const result = mergeChanges(feed, changes(5, 7, [job(4), job(3), job(4, 'running')]));
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(seqsOf(result.feed)).toEqual([1, 2, 3, 4]);
    expect(result.feed.pages[0]!.totalJobs).toBe(4);
    // The first copy in the answer wins (the server lists each job once, newest first).
    expect(feedJobs(result.feed).find((j) => j.seq === 4)!.status).toBe('queued');
  });

  it('keeps the revision monotonic: an answer at or below the feed’s changes nothing (same object)', () => {
    const feed = feedOf(page(9, 1, [1]));
    for (const revision of [9, 8, 0]) {
      const result = mergeChanges(feed, changes(3, revision, [job(1, 'failed')]));
      expect(result).toEqual({ kind: 'unchanged', feed });
      if (result.kind === 'unchanged') expect(result.feed).toBe(feed);
    }
  });

  it('asks for a reload when the server could not list everything, or the answer starts past the feed', () => {
    const feed = feedOf(page(5, 1, [1]));
    expect(mergeChanges(feed, changes(5, 9, [], true))).toEqual({ kind: 'reload' });
    expect(mergeChanges(feed, changes(6, 9, [job(2)]))).toEqual({ kind: 'reload' });
  });

  it('leaves a job older than the loaded history to scroll-back, but patches one inside a loaded older page', () => {
    const newest = Array.from({ length: ACTIVITY_PAGE_SIZE }, (_, i) => 100 - i);
    const older = Array.from({ length: ACTIVITY_PAGE_SIZE }, (_, i) => 70 - i);
    const feed = feedOf(page(5, 200, newest), page(5, 200, older));
    const result = mergeChanges(feed, changes(5, 6, [job(3, 'completed'), job(60, 'completed')]));
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(feedJobs(result.feed).some((j) => j.seq === 3)).toBe(false);
    expect(result.feed.pages[1]!.jobs.find((j) => j.seq === 60)!.status).toBe('completed');
    expect(result.feed.pages[0]!.totalJobs).toBe(200);
  });

  it('carries a receipt’s new status into the request that embeds it, though only the receipt was listed', () => {
    const request = { ...job(1, 'completed'), receipt: { id: 'j2', status: 'queued' as const } };
    const receipt = { ...job(2, 'queued'), kind: 'receipt' as const };
    const feed = feedOf({ revision: 5, totalJobs: 2, jobs: [receipt, request] });
    const result = mergeChanges(feed, changes(5, 6, [{ ...receipt, status: 'completed' }]));
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(feedJobs(result.feed).map((j) => [j.id, j.status, j.receipt?.status ?? null])).toEqual([
      ['j1', 'completed', 'completed'],
      ['j2', 'completed', null],
    ]);
  });

  it('adds a job to an empty feed', () => {
    const result = mergeChanges(feedOf(page(0, 0, [])), changes(0, 1, [job(1)]));
    if (result.kind !== 'merged') throw new Error(result.kind);
    expect(seqsOf(result.feed)).toEqual([1]);
    expect(result.feed.pages[0]!.totalJobs).toBe(1);
  });
});

describe('paging', () => {
  it('reads older history while the last page came back full, and stops at a short page', () => {
    const full = page(1, 100, Array.from({ length: ACTIVITY_PAGE_SIZE }, (_, i) => 90 - i));
    expect(nextPageParam(full)).toBe(90 - ACTIVITY_PAGE_SIZE + 1);
    expect(nextPageParam(page(1, 3, [3, 2, 1]))).toBeUndefined();
    expect(nextPageParam(page(0, 0, []))).toBeUndefined();
  });

  it('shows each job once, oldest first, even if two pages hold the same job', () => {
    const feed = feedOf(page(3, 3, [3, 2]), page(3, 3, [2, 1]));
    expect(feedJobs(feed).map((j) => j.id)).toEqual(['j1', 'j2', 'j3']);
    expect(feedJobs(undefined)).toEqual([]);
  });
});

/**
 * Against an oracle: a team whose jobs are created and changed revision by revision (the server's truth), a client
 * that loaded the newest page at some revision and then receives `since` answers in any order, duplicates included.
 * Whatever the order, the feed ends at the newest revision it was handed and shows exactly the truth at that
 * revision for every job it holds, each once, in seq order; it never holds a job the truth lacks.
 */
describe('mergeChanges against an oracle', () => {
  type Step = { create: boolean; touch: number };
  const history = fc.array(fc.record({ create: fc.boolean(), touch: fc.nat(40) }), { minLength: 1, maxLength: 40 });

  /** The truth at each revision: every job's latest copy and the revision it last changed at. */
  function simulate(steps: Step[]) {
    const revisions: Array<Map<number, { job: ApiJob; changedAt: number }>> = [new Map()];
    let next = 1;
    steps.forEach((step, i) => {
      const revision = i + 1;
      const state = new Map(revisions[i]!);
      if (step.create || state.size === 0) {
        state.set(next, { job: job(next), changedAt: revision });
        next += 1;
      } else {
        const seqs = [...state.keys()];
        const seq = seqs[step.touch % seqs.length]!;
        state.set(seq, { job: job(seq, 'completed', `r${revision}`), changedAt: revision });
      }
      revisions.push(state);
    });
    return revisions;
  }
  const answer = (revisions: ReturnType<typeof simulate>, since: number, revision: number): ApiActivityChanges =>
    changes(
      since,
      revision,
      [...revisions[revision]!.values()].filter((e) => e.changedAt > since).map((e) => e.job).sort((a, b) => b.seq - a.seq),
    );

  it('converges on the truth at the newest revision handed to it, in any order', () => {
    fc.assert(
      fc.property(history, fc.nat(), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }), (steps, startAt, reads) => {
        const revisions = simulate(steps);
        const last = revisions.length - 1;
        const start = startAt % (last + 1);
        const truthAt = (r: number) => [...revisions[r]!.values()].map((e) => e.job).sort((a, b) => b.seq - a.seq);
        let feed = feedOf({ revision: start, totalJobs: revisions[start]!.size, jobs: truthAt(start) });
        let newest = start;
        for (const [a, b] of reads) {
          // Each read was asked at some revision the client had been at (≤ its current), answered at any later one.
          const since = start + (a % (feedRevision(feed)! - start + 1));
          const revision = since + (b % (last - since + 1));
          const result = mergeChanges(feed, answer(revisions, since, revision));
          expect(result.kind).not.toBe('reload');
          if (result.kind === 'merged') feed = result.feed;
          newest = Math.max(newest, revision);
          expect(feedRevision(feed)).toBe(newest);
        }
        const held = feedJobs(feed);
        expect(held.map((j) => j.seq)).toEqual([...new Set(held.map((j) => j.seq))].sort((x, y) => x - y));
        expect(held).toEqual(truthAt(newest).reverse());
        expect(feed.pages[0]!.totalJobs).toBe(revisions[newest]!.size);
      }),
      { numRuns: 300 },
    );
  });
});
