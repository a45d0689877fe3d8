import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { HydrationBoundary, QueryClient, dehydrate } from '@tanstack/react-query';
import { teamKeys } from '@/components/teams/queries';
import { TeamList } from '@/components/teams/team-list';
import { currentUser } from '@/server/auth/require-user';
import { listTeams } from '@/server/teams/teams';

export const metadata: Metadata = { title: 'Teams' };

/** Rendered with the owner's teams as GET /api/v1/teams answers them; the list then refreshes in the browser. */
export default async function TeamsPage() {
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  const queryClient = new QueryClient();
  queryClient.setQueryData(teamKeys.list(), { teams: await listTeams(user.id) });
  return (
    <HydrationBoundary state={dehydrate(queryClient)}>
      <TeamList />
    </HydrationBoundary>
  );
}
