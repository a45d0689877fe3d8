import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { cache } from 'react';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { ACTIVITY_PAGE_SIZE, type ActivityFeed } from '@/components/teams/activity-cache';
import { asActivityPage, teamKeys } from '@/components/teams/queries';
import { TeamWorkspace } from '@/components/teams/team-workspace';
import { currentUser } from '@/server/auth/require-user';
import { AppError } from '@/server/http/errors';
import { getActivity } from '@/server/teams/activity';
import { listStateForApi } from '@/server/teams/state';
import { getTeam } from '@/server/teams/teams';

type Props = { params: Promise<{ id: string }> };

/**
 * The workspace's first data as its API routes answer it (the same server functions, the same owner check): the
 * team, the newest page of the feed and the state panel; null when the team is missing or someone else's (both 404).
 */
const loadTeam = cache(async (id: string) => {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    const team = getTeam(user.id, id);
    const firstPage = asActivityPage(getActivity(user.id, id, { limit: ACTIVITY_PAGE_SIZE, offset: 0, details: true }));
    return { team, feed: { pages: [firstPage], pageParams: [null] } satisfies ActivityFeed, state: listStateForApi(user.id, id) };
  } catch (err) {
    if (err instanceof AppError && err.status === 404) return null;
    throw err;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const data = await loadTeam((await params).id);
  return { title: data ? data.team.name : 'Team not found' };
}

/** Rendered with its first data (content on first paint); the workspace takes over from the cache and push. */
export default async function TeamPage({ params }: Props) {
  const { id } = await params;
  const data = await loadTeam(id);
  if (!data) notFound();
  const queryClient = new QueryClient();
  queryClient.setQueryData(teamKeys.detail(id), data.team);
  queryClient.setQueryData(teamKeys.activity(id), data.feed);
  queryClient.setQueryData(teamKeys.state(id), data.state);
  // Keyed by id so moving to another team starts with fresh drafts and a fresh stream.
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <TeamWorkspace key={id} teamId={id} />
    </HydrationBoundary>
  );
}
