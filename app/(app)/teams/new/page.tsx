import type { Metadata } from 'next';
import { TeamCreateForm } from '@/components/teams/TeamCreateForm';

export const metadata: Metadata = { title: 'New team' };

export default function NewTeamPage() {
  return <TeamCreateForm />;
}
