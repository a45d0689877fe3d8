import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { TeamRunsView } from '@/components/runs-timeline/team-runs-view';
import { currentUser } from '@/server/auth/require-user';
import { AppError } from '@/server/http/errors';
import { requireTeam } from '@/server/teams/teams';

export const metadata: Metadata = { title: 'Runs' };

// The data comes from /api/v1/teams/:id/runs in the browser; that route scopes it to the signed-in owner. The team is
// checked here too, so a missing or someone else's team answers 404 like the team's own page.
export default async function TeamRunsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await currentUser();
  if (!user) redirect('/sign-in');
  try {
    await requireTeam(user.id, id);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) notFound();
    throw err;
  }
  return <TeamRunsView key={id} teamId={id} />;
}
