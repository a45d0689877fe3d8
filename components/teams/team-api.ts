'use client';

import { apiFetch } from '@/lib/api-client';
import type { ApiAgentList } from '@/lib/types/agent';
import type { ApiActivity, ApiTeam, ApiTeamSummary } from '@/lib/types/team';

/** Query keys for the team screens, in one place so mutations invalidate the right data. */
export const teamKeys = {
  all: ['teams'] as const,
  list: () => ['teams', 'list'] as const,
  detail: (id: string) => ['teams', 'detail', id] as const,
  catalog: (query: string) => ['teams', 'agent-catalog', query] as const,
};

const team = (id: string) => `/api/v1/teams/${encodeURIComponent(id)}`;

/** The team screens' reads; their writes are server actions (team-actions.tsx). */
export const teamApi = {
  list: (signal?: AbortSignal) => apiFetch<{ teams: ApiTeamSummary[] }>('/api/v1/teams', { signal }),
  get: (id: string, signal?: AbortSignal) => apiFetch<ApiTeam>(team(id), { signal }),
  agents: (query: string, signal?: AbortSignal) =>
    apiFetch<ApiAgentList>(`/api/v1/agents${query ? `?query=${encodeURIComponent(query)}` : ''}`, { signal }),
  activity: (id: string, revision: number | undefined, signal?: AbortSignal) => {
    const params = new URLSearchParams({ limit: '200', details: '1' });
    if (revision !== undefined) params.set('revision', String(revision));
    return apiFetch<ApiActivity>(`${team(id)}/activity?${params}`, { signal });
  },
};

/** Classes that make a Link look like a Button (components/ui has no link variant). */
export const linkButton = {
  primary:
    'inline-flex h-10 shrink-0 items-center justify-center gap-1.5 rounded-md bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:bg-indigo-500 dark:hover:bg-indigo-400',
  secondary:
    'inline-flex h-8 shrink-0 items-center justify-center gap-1.5 rounded-md border border-zinc-300 bg-white px-2.5 text-sm font-medium text-zinc-900 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:hover:bg-zinc-800',
  text: 'font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-500 dark:text-indigo-300',
};
