import type { Metadata } from 'next';
import { TeamRunsView } from '@/components/runs-timeline/team-runs-view';

export const metadata: Metadata = { title: 'Runs' };

// The data comes from /api/v1/teams/:id/runs in the browser; that route scopes it to the signed-in owner.
export default async function TeamRunsPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TeamRunsView key={id} teamId={id} />;
}
