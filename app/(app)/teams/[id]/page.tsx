import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { ACTIVITY_PAGE_SIZE, type ActivityFeed } from '@/components/teams/activity-cache';
import { asActivityPage, teamKeys } from '@/components/teams/queries';
import { teamTitle } from '@/components/teams/tab-title';
import { TeamWorkspace } from '@/components/teams/team-workspace';
import { feedFilterFromParams, type FeedFilter } from '@/lib/feed-filter';
import { currentUser } from '@/server/auth/require-user';
import { AppError } from '@/server/http/errors';
import { getActivity } from '@/server/teams/activity';
import { listStateForApi } from '@/server/teams/state';
import { getTeam } from '@/server/teams/teams';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The workspace's first data as its API routes answer it (the same server functions, the same owner check): the
 * team, the newest page of the feed and the state panel; null when the team is missing or someone else's (both 404).
 */
const loadTeam = cache(async (id: string, member: string | null, status: FeedFilter['status'], text: string) => {
  const filter: FeedFilter = { member, status, text };
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    const team = await getTeam(user.id, id);
    const firstPage = asActivityPage(await getActivity(user.id, id, { limit: ACTIVITY_PAGE_SIZE, offset: 0, details: true, ...filter }));
    return { team, feed: { pages: [firstPage], pageParams: [null] } satisfies ActivityFeed, state: await listStateForApi(user.id, id) };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

/** A filtered link (?member=&status=&text=) renders the filtered feed on first paint (lib/feed-filter.ts). */
async function filterOf(searchParams: Props['searchParams']): Promise<FeedFilter> {
  const query = await searchParams;
  return feedFilterFromParams({ get: (name) => (typeof query[name] === 'string' ? query[name] : null) });
}

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const filter = await filterOf(searchParams);
  const data = await loadTeam((await params).id, filter.member, filter.status, filter.text);
  return { title: data ? teamTitle(data.team.name, data.team.waitingJobs) : 'Team not found' };
}

/** Rendered with its first data (content on first paint); the workspace takes over from the cache and push. */
export default async function TeamPage({ params, searchParams }: Props) {
  const { id } = await params;
  const filter = await filterOf(searchParams);
  const data = await loadTeam(id, filter.member, filter.status, filter.text);
  if (!data) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(teamKeys.detail(id), data.team);
  queryClient.setQueryData(teamKeys.activity(id, filter), data.feed);
  queryClient.setQueryData(teamKeys.state(id), data.state);
  // Keyed by id so moving to another team starts with fresh drafts and a fresh stream.
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <TeamWorkspace key={id} teamId={id} />
    </HydrationBoundary>
  );
}
