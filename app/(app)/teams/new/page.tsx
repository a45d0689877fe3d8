import type { Metadata } from 'next';
import { TeamCreateForm } from '@/components/teams/team-create-form';

export const metadata: Metadata = { title: 'New team' };

export default function NewTeamPage() {
  return <TeamCreateForm />;
}
