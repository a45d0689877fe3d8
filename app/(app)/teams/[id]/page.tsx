import type { Metadata } from 'next';
import { TeamWorkspace } from '@/components/teams/team-workspace';

export const metadata: Metadata = { title: 'Team' };

// Team data comes from /api/v1/teams/:id in the browser; that route scopes it to the signed-in owner.
export default async function TeamPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Keyed by id so moving to another team starts with fresh drafts and a fresh live poll.
  return <TeamWorkspace key={id} teamId={id} />;
}
