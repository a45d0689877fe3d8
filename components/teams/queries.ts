/**
 * The team screens' reads, as TanStack `queryOptions` factories under ['teams', …]; their writes are server actions
 * (team-actions.tsx). Keys are hierarchical: everything one workspace shows sits under `teamKeys.detail(id)`, so
 * removing that key forgets the team entirely, while `exact: true` refreshes the team itself (members, counts)
 * without touching its feed or state.
 */
import { infiniteQueryOptions, keepPreviousData, queryOptions } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import type { ApiActivity, ApiActivityChanges, ApiTeam, ApiTeamSummary, ApiTeamWaits } from '@/lib/types/team';
import { NO_FEED_FILTER, feedFilterKey, feedFilterParams, type FeedFilter } from '@/lib/feed-filter';
import { ACTIVITY_PAGE_SIZE, nextPageParam, readPage, type ActivityFeed, type ActivityPage, type ActivityPageParam } from './activity-cache';
import type { StateView } from './state/state-view';

export const teamKeys = {
  all: ['teams'] as const,
  list: () => ['teams', 'list'] as const,
  detail: (id: string) => ['teams', 'detail', id] as const,
  /** Every cached feed of the team, whatever its filter (to invalidate them all). */
  activityAll: (id: string) => ['teams', 'detail', id, 'activity'] as const,
  /**
   * The feed under one filter (none by default): pages of jobs, newest page first, patched in place by push
   * (use-team-events.ts). Each filter is its own cache entry, so the back button shows the previous view at once.
   */
  activity: (id: string, filter: FeedFilter = NO_FEED_FILTER) => ['teams', 'detail', id, 'activity', feedFilterKey(filter)] as const,
  state: (id: string) => ['teams', 'detail', id, 'state'] as const,
  /** Why each queued job waits (re-read on every team event, use-team-events.ts). */
  waiting: (id: string) => ['teams', 'detail', id, 'waiting'] as const,
};

const teamPath = (id: string) => `/api/v1/teams/${encodeURIComponent(id)}`;

/** A missing team (deleted, or another owner's) or a lost session won't answer differently if asked again. */
export const isPermanentTeamError = (e: unknown) => e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404);
const retry = (count: number, e: Error) => !isPermanentTeamError(e) && count < 2;

/** A full activity answer as a feed page (an `unchanged` answer only comes back to a request that sent `revision`). */
export function asActivityPage(answer: ApiActivity): ActivityPage {
  if (answer.unchanged) throw new Error('The server answered "unchanged" to a request without a revision');
  return readPage({ revision: answer.revision, totalJobs: answer.totalJobs, jobs: answer.jobs });
}

/** GET /api/v1/teams */
export const fetchTeams = (signal?: AbortSignal) => apiFetch<{ teams: ApiTeamSummary[] }>('/api/v1/teams', { signal });

/** GET /api/v1/teams/:id */
export const fetchTeam = (id: string, signal?: AbortSignal) => apiFetch<ApiTeam>(teamPath(id), { signal });

/** GET /api/v1/teams/:id/activity?details=1&limit=N[&before=SEQ][&member&status&text]: one page of the feed, newest first. */
export const fetchActivityPage = async (id: string, before: ActivityPageParam, signal?: AbortSignal, filter: FeedFilter = NO_FEED_FILTER) => {
  const params = feedFilterParams(filter);
  params.set('limit', String(ACTIVITY_PAGE_SIZE));
  params.set('details', '1');
  if (before !== null) params.set('before', String(before));
  return asActivityPage(await apiFetch<ApiActivity>(`${teamPath(id)}/activity?${params}`, { signal }));
};

/**
 * GET /api/v1/teams/:id/activity?since=REV: only the jobs changed after REV (what a push message announced); with a
 * filter, also the changed jobs that left it.
 */
export const fetchActivityChanges = (id: string, since: number, signal?: AbortSignal, filter: FeedFilter = NO_FEED_FILTER) => {
  const params = feedFilterParams(filter);
  params.set('since', String(since));
  return apiFetch<ApiActivityChanges>(`${teamPath(id)}/activity?${params}`, { signal });
};

/** GET /api/v1/teams/:id/state */
export const fetchTeamState = (id: string, signal?: AbortSignal) => apiFetch<StateView>(`${teamPath(id)}/state`, { signal });

/** The owner's teams; the list page refreshes it every 10 s for its "waiting for input" badges. */
export const teamListQuery = () => queryOptions({ queryKey: teamKeys.list(), queryFn: ({ signal }) => fetchTeams(signal) });

export const teamQuery = (id: string) =>
  queryOptions({ queryKey: teamKeys.detail(id), queryFn: ({ signal }) => fetchTeam(id, signal), retry });

/**
 * The feed, paged backwards (`before` the oldest seq loaded). Push keeps it current (staleTime Infinity: nothing
 * re-reads it on its own); a refetch re-reads only the pages already loaded.
 */
export const activityQuery = (id: string, filter: FeedFilter = NO_FEED_FILTER) =>
  infiniteQueryOptions<ActivityPage, Error, ActivityFeed, ReturnType<typeof teamKeys.activity>, ActivityPageParam>({
    queryKey: teamKeys.activity(id, filter),
    queryFn: ({ signal, pageParam }) => fetchActivityPage(id, pageParam, signal, filter),
    initialPageParam: null,
    getNextPageParam: nextPageParam,
    staleTime: Infinity,
    // A new filter keeps the previous feed on screen until its own first page arrives (no spinner flash).
    placeholderData: keepPreviousData,
    retry,
  });

/** Refetched when push says the team moved (every state write bumps the team revision). */
export const teamStateQuery = (id: string) =>
  queryOptions({ queryKey: teamKeys.state(id), queryFn: ({ signal }) => fetchTeamState(id, signal), retry });

/** GET /api/v1/teams/:id/waiting */
export const fetchWaitReasons = (id: string, signal?: AbortSignal) => apiFetch<ApiTeamWaits>(`${teamPath(id)}/waiting`, { signal });

/** How many are ahead also moves with other teams' work, which this team's events don't announce. */
export const WAITING_REFRESH_MS = 10_000;

/**
 * Why the team's queued jobs wait: re-read on each team event, and every WAITING_REFRESH_MS while something waits
 * (never while nothing does).
 */
export const waitReasonsQuery = (id: string) =>
  queryOptions({
    queryKey: teamKeys.waiting(id),
    queryFn: ({ signal }) => fetchWaitReasons(id, signal),
    refetchInterval: (query) => (Object.keys(query.state.data?.reasons ?? {}).length > 0 ? WAITING_REFRESH_MS : false),
    retry,
  });
