/** Browser read of a team's runs timeline, as a TanStack `queryOptions` factory under ['teams', 'runs', id, window]. */
import { queryOptions } from '@tanstack/react-query';
import { ApiError, apiFetch } from '@/lib/api-client';
import type { LivePoll } from '@/lib/query/live-connection';
import type { ApiTeamRuns } from '@/lib/types/team-runs';

export const WINDOWS = {
  hour: { label: 'Last hour', ms: 3_600_000 },
  day: { label: 'Last 24 hours', ms: 86_400_000 },
  week: { label: 'Last 7 days', ms: 7 * 86_400_000 },
} as const;
export type WindowKey = keyof typeof WINDOWS;

export const teamRunsKeys = {
  all: (teamId: string) => ['teams', 'runs', teamId] as const,
  window: (teamId: string, window: WindowKey) => ['teams', 'runs', teamId, window] as const,
};

export const fetchTeamRuns = (teamId: string, window: WindowKey, signal?: AbortSignal, now = Date.now()) =>
  apiFetch<ApiTeamRuns>(
    `/api/v1/teams/${encodeURIComponent(teamId)}/runs?${new URLSearchParams({ from: new Date(now - WINDOWS[window].ms).toISOString(), to: new Date(now).toISOString() })}`,
    { signal },
  );

/**
 * GET /api/v1/teams/:id/runs for a window ending now (each read moves the window to the moment it is made). Re-read
 * when the team's event stream announces a change (use-team-runs-push.ts); `poll` (its fallback) only while it is down.
 */
export const teamRunsQuery = (teamId: string, window: WindowKey, poll?: LivePoll) =>
  queryOptions({
    queryKey: teamRunsKeys.window(teamId, window),
    queryFn: ({ signal }) => fetchTeamRuns(teamId, window, signal),
    ...poll,
    retry: (count, e) => !(e instanceof ApiError && (e.status === 401 || e.status === 404)) && count < 2,
  });
