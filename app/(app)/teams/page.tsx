import type { Metadata } from 'next';
import { TeamList } from '@/components/teams/TeamList';

export const metadata: Metadata = { title: 'Teams' };

// The list is fetched in the browser from /api/v1/teams, which checks the user itself.
export default function TeamsPage() {
  return <TeamList />;
}
