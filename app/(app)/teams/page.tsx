import type { Metadata } from 'next';
import { TeamList } from '@/components/teams/team-list';

export const metadata: Metadata = { title: 'Teams' };

// The list is fetched in the browser from /api/v1/teams, which checks the user itself.
export default function TeamsPage() {
  return <TeamList />;
}
