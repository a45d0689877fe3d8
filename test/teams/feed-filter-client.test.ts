import { describe, expect, it } from 'vitest';
import { ACTIVITY_PAGE_SIZE, feedJobs, mergeChanges, nextPageParam, readPage, type ActivityFeed } from '@/components/teams/activity-cache';
import { teamKeys } from '@/components/teams/queries';
import { FEED_FILTER_TEXT, NO_FEED_FILTER, asciiLower, feedFilterFromParams, feedFilterParams, isFiltered } from '@/lib/feed-filter';
import type { ApiJob, JobStatus } from '@/lib/types/team';

/* The browser half of the feed filter: the URL round trip, query keys per filter, and push patches of a filtered feed. */
const job = (seq: number, status: JobStatus = 'queued'): ApiJob => ({
  id: `j${seq}`,
  seq,
  kind: 'request',
  memberId: 'm1',
  conversationId: 'c1',
  status,
  text: `task ${seq}`,
  createdAt: '2026-12-01T10:00:00.000Z',
  completedAt: null,
  sourceMemberId: null,
  sourceConversationId: null,
  parentId: null,
  rootId: `j${seq}`,
  receipt: null,
});
const seqs = (from: number, count: number) => Array.from({ length: count }, (_, i) => from - i);

describe('feed filter in the URL', () => {
  it('round-trips member, status and text (CJK and emoji), keeping unrelated params', () => {
    const filter = { member: 'm-1', status: 'failed' as const, text: '売上 📈 & 100%' };
    const params = feedFilterParams(filter, new URLSearchParams('tab=runs&text=old'));
    expect(params.get('tab')).toBe('runs');
    expect(feedFilterFromParams(new URLSearchParams(params.toString()))).toEqual(filter);
    expect(feedFilterParams(NO_FEED_FILTER).toString()).toBe('');
    expect(isFiltered(NO_FEED_FILTER)).toBe(false);
    expect(isFiltered({ ...NO_FEED_FILTER, text: 'x' })).toBe(true);
  });

  it('reads a stale or hand-edited URL leniently: unknown status dropped, text cut to 200 code points, not split inside an emoji', () => {
    expect(feedFilterFromParams(new URLSearchParams('status=bogus&member=%20%20'))).toEqual(NO_FEED_FILTER);
    expect(feedFilterFromParams(new URLSearchParams(`member=${'x'.repeat(101)}`)).member).toBeNull();
    const at = (t: string) => feedFilterFromParams(new URLSearchParams({ text: t })).text;
    expect(at('a'.repeat(200))).toBe('a'.repeat(200));
    expect(at('a'.repeat(201))).toBe('a'.repeat(200));
    expect(at('研'.repeat(201))).toBe('研'.repeat(200));
    expect(at('🤖'.repeat(201))).toBe('🤖'.repeat(FEED_FILTER_TEXT.maxChars));
    expect(at('  padded  ')).toBe('padded');
  });

  it('folds only ASCII letters, like SQLite lower()', () => {
    expect(asciiLower('AbÉ研🤖Z')).toBe('abÉ研🤖z');
  });

  it('gives each filter its own cache entry under the team feed prefix', () => {
    const a = teamKeys.activity('t1', { member: null, status: 'failed', text: '' });
    const b = teamKeys.activity('t1', { member: null, status: 'failed', text: '' });
    expect(a).toEqual(b);
    expect(a).not.toEqual(teamKeys.activity('t1'));
    expect(a.slice(0, 4)).toEqual([...teamKeys.activityAll('t1')]);
  });
});

describe('push patches of a filtered feed', () => {
  it('drops jobs that left the filter, adds matching ones, takes the server’s count, and keeps "Show older"', () => {
    const first = readPage({ revision: 5, totalJobs: 40, jobs: seqs(100, ACTIVITY_PAGE_SIZE).map((s) => job(s)) });
    const feed: ActivityFeed = { pages: [first], pageParams: [null] };
    const cursor = nextPageParam(first);
    expect(cursor).toBe(100 - ACTIVITY_PAGE_SIZE + 1);
    const result = mergeChanges(feed, { revision: 6, since: 5, changed: [job(101), job(99, 'running')], unmatched: [`j${100}`, 'j90'], truncated: false, totalJobs: 39 });
    expect(result.kind).toBe('merged');
    if (result.kind !== 'merged') return;
    const ids = feedJobs(result.feed).map((j) => j.id);
    expect(ids).not.toContain('j100');
    expect(ids).not.toContain('j90');
    expect(ids).toContain('j101');
    expect(feedJobs(result.feed).find((j) => j.id === 'j99')!.status).toBe('running');
    expect(result.feed.pages[0]!.totalJobs).toBe(39);
    // The page is shorter than a full page now, but history behind it is still there.
    expect(nextPageParam(result.feed.pages[0]!)).toBe(cursor);
  });

  it('an unfiltered answer (no unmatched list, no count) patches as before', () => {
    const first = readPage({ revision: 1, totalJobs: 2, jobs: [job(2), job(1)] });
    const result = mergeChanges({ pages: [first], pageParams: [null] }, { revision: 2, since: 1, changed: [job(3)], truncated: false });
    expect(result.kind === 'merged' && result.feed.pages[0]!.totalJobs).toBe(3);
    expect(nextPageParam(first)).toBeUndefined();
  });
});
